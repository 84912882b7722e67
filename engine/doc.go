// Package engine runs deploys as DBOS workflows: the submission checks in the
// spec's order, the deploy queue partitioned per environment, and the steps
// of the pipeline (config, secrets, artifacts, qa, deploy, post-test,
// activation, cleanup), each a DBOS step. *Engine implements deploy.Service.
//
// It may import deploy, descriptor, config and the standard library, DBOS,
// and engine/plugins; never server, graph or internal/postgres.
package engine
