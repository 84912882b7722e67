DROP TRIGGER deployment_steps_dora_fact ON manent.deployment_steps;
DROP TRIGGER deployments_dora_fact ON manent.deployments;
DROP FUNCTION manent.dora_fact_of_step();
DROP FUNCTION manent.dora_fact_of_deployment();
DROP TABLE manent.dora_facts;
DROP FUNCTION manent.dora_touches_target(text, text);
