import { useNavigate } from "react-router";
import { useMutation } from "urql";
import { ConfirmedAction } from "./ConfirmedAction";
import { promoteText, redeployText, type DeployRef } from "./copy";
import { PromoteMutation, RedeployMutation } from "./queries";
import { newDeployId } from "./requestId";
import styles from "./Actions.module.css";

export interface PromoteActionsProps {
  deployment: DeployRef;
  /** The server's Deployment.promotionTargets (or InventoryEntry.promotionTargets): where this viewer may promote it now. */
  targets: readonly string[];
  /** Shorter buttons for a matrix cell. */
  compact?: boolean;
}

/** One "Promote to <env>…" per target the server offers; a success opens the new deploy. */
export function PromoteActions({ deployment, targets, compact }: PromoteActionsProps) {
  const navigate = useNavigate();
  const [, promote] = useMutation(PromoteMutation);
  return (
    <>
      {targets.map((to) => (
        <ConfirmedAction
          key={to}
          testId={`promote-${to}`}
          label={compact ? `→ ${to}…` : `Promote to ${to}…`}
          title={`Promote to ${to}?`}
          confirmLabel={`Promote to ${to}`}
          text={promoteText(deployment, to)}
          context="Promoting"
          run={async (key) => {
            const r = await promote({ id: deployment.id, to, newId: newDeployId(deployment.application, to, key) });
            if (r.data) navigate(`/deployments/${encodeURIComponent(r.data.promote.id)}`);
            return r;
          }}
        />
      ))}
    </>
  );
}

export interface DeploymentActionsProps {
  deployment: DeployRef & { dryRun: boolean; canRedeploy: boolean; promotionTargets: readonly string[] };
}

/** Redeploy and promote on a deploy's page, each only where the server says the viewer may. */
export function DeploymentActions({ deployment: d }: DeploymentActionsProps) {
  const navigate = useNavigate();
  const [, redeploy] = useMutation(RedeployMutation);
  if (!d.canRedeploy && d.promotionTargets.length === 0) return null;
  return (
    <div className={styles.group} role="group" aria-label="Deploy actions">
      {d.canRedeploy && (
        <ConfirmedAction
          testId="redeploy"
          label="Redeploy…"
          title="Redeploy this release?"
          confirmLabel="Redeploy"
          text={redeployText(d)}
          context="Redeploying"
          run={async (key) => {
            const r = await redeploy({ id: d.id, newId: newDeployId(d.application, d.environment, key) });
            if (r.data) navigate(`/deployments/${encodeURIComponent(r.data.redeploy.id)}`);
            return r;
          }}
        />
      )}
      <PromoteActions deployment={d} targets={d.promotionTargets} />
    </div>
  );
}
