import { useNavigate } from "react-router";
import { useMutation } from "urql";
import { ConfirmedAction } from "./ConfirmedAction";
import { rollbackText, type RollbackRef } from "./copy";
import { RollbackEnvironmentMutation } from "./queries";
import { newDeployId } from "./requestId";

export interface RollbackActionProps {
  tenant: string;
  /** The earlier release to go back to; shown only when its canRollbackTo (or the environment's canRollback) says so. */
  target: RollbackRef;
  label?: string;
}

/** Rolls an environment back to a chosen earlier release; a success opens the new deploy. */
export function RollbackAction({ tenant, target, label = "Roll back to this…" }: RollbackActionProps) {
  const navigate = useNavigate();
  const [, rollback] = useMutation(RollbackEnvironmentMutation);
  return (
    <ConfirmedAction
      testId={`rollback-${target.id}`}
      label={label}
      title={`Roll back ${target.environment} to ${target.version}?`}
      confirmLabel="Roll back"
      danger
      text={rollbackText(target)}
      context="Rolling back"
      run={async (key) => {
        const id = newDeployId(target.application, target.environment, key);
        const r = await rollback({ application: target.application, environment: target.environment, tenant, to: target.id, id });
        if (r.data) navigate(`/deployments/${encodeURIComponent(r.data.rollback.id)}`);
        return r;
      }}
    />
  );
}
