import { useState } from "react";
import { Link } from "react-router";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { PageHeader } from "../../shared/Layout";
import { Empty, Loading } from "../../shared/Placeholder";
import { StateBadge } from "../../shared/StateBadge";
import { Time } from "../../shared/time";
import { ApprovalActions } from "./ApprovalActions";
import { ApprovalContextPanel } from "./ApprovalContext";
import { ApprovalSummary } from "./ApprovalSummary";
import { askedApproval, badgeCount, canAnswer, sortInbox } from "./inbox";
import { usePendingApprovals } from "./PendingApprovals";

/** The deploys awaiting the viewer's approval, live, each with its decision explained. */
export function ApprovalsPage() {
  const { items, loaded, error, refetch } = usePendingApprovals();
  const count = badgeCount(items);
  // What each answer given here led to: the card leaves the inbox once
  // answered, its outcome stays said.
  const [answered, setAnswered] = useState<{ id: string; title: string; outcome: string }[]>([]);
  return (
    <>
      <PageHeader
        title="Approvals"
        subtitle={loaded ? `${count === 1 ? "1 deploy awaits" : `${count} deploys await`} your approval. Updated live.` : "Deploys awaiting your approval, updated live."}
      />
      {error && <ErrorMessage error={error} context="Loading the approvals" onRetry={refetch} />}
      {answered.length > 0 && (
        <div className="m-card m-card-pad" role="status">
          <ul className="m-approval-answered" aria-label="Your answers">
            {answered.map((a) => (
              <li key={a.id} data-answered={a.id}>
                <Link to={`/deployments/${encodeURIComponent(a.id)}`}>{a.title}</Link> <span className="m-mono m-muted">{a.id}</span>: {a.outcome}
              </li>
            ))}
          </ul>
        </div>
      )}
      {!loaded && !error && <Loading label="Loading the approvals…" />}
      {loaded && items.length === 0 && answered.length === 0 && (
        <Empty title="Nothing awaits your approval.">Deploys, and waves of a rollout, that need your approval appear here as soon as they ask it.</Empty>
      )}
      {items.length > 0 && (
        <ul className="m-approval-list" aria-label="Deploys awaiting approval">
          {sortInbox(items).map((d) => {
            // A deploy whose wave awaits approval is PENDING: what it asks
            // is the wave's approval, not its own (answered before it ran).
            const asked = askedApproval(d);
            const wave = asked?.wave ?? null;
            const title = `${d.application} → ${d.environment}`;
            return (
              <li key={d.id} className="m-card m-card-pad m-approval-item" data-deployment-id={d.id} data-approval-wave={wave?.name}>
                <div className="m-approval-head">
                  <h2 className="m-approval-title">
                    <Link to={`/deployments/${encodeURIComponent(d.id)}`}>{title}</Link>
                  </h2>
                  <StateBadge state={d.state} size="small" />
                </div>
                <p className="m-muted">
                  <span className="m-mono">{d.id}</span> · tenant <strong>{d.tenant}</strong> · {d.artifact.name} <strong>{d.artifact.version}</strong> ·
                  requested by <span className="m-mono">{d.requester}</span> <Time iso={d.createdAt} />
                </p>
                {d.approvalContext && <ApprovalContextPanel context={d.approvalContext} />}
                <ApprovalSummary
                  deployment={{ decision: d.decision, approval: asked ? asked.approval : d.approval }}
                  wave={wave}
                  showStatus={false}
                  explained={!wave && !!d.approvalContext}
                />
                <ApprovalActions
                  id={d.id}
                  title={wave ? `${title}, wave ${wave.name}` : title}
                  wave={wave ? { name: wave.name, release: `${d.artifact.name}-${d.artifact.version}` } : undefined}
                  visible={canAnswer(d)}
                  onAnswered={(outcome) => {
                    setAnswered((prev) => [{ id: d.id, title: wave ? `${title}, wave ${wave.name}` : title, outcome }, ...prev.filter((a) => a.id !== d.id)]);
                    refetch();
                  }}
                />
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}
