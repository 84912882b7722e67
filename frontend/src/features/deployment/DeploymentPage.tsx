import { useEffect, useReducer, useState } from "react";
import { Link, useParams } from "react-router";
import { useQuery } from "urql";
import type { CombinedError } from "@urql/core";
import { useOnReconnect } from "../../shared/api/connection";
import { useSubscriptionEvents } from "../../shared/api/live";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { Empty, Loading } from "../../shared/Placeholder";
import { StateBadge } from "../../shared/StateBadge";
import { StartsAt } from "../../shared/time";
import { isFailed, isFinal } from "../../shared/states";
import { DeploymentActions } from "../actions/DeploymentActions";
import { ApprovalActions } from "../approvals/ApprovalActions";
import { ApprovalContextPanel } from "../approvals/ApprovalContext";
import { ApprovalSummary } from "../approvals/ApprovalSummary";
import { waveAwaitingApproval } from "../approvals/inbox";
import { CancelDeployment } from "./CancelDeployment";
import { Exports, WaitedOnBy, WaitsFor } from "./DeploymentChain";
import { DeploymentFacts } from "./DeploymentFacts";
import { emptyLive, liveReducer } from "./liveDeployment";
import { LogViewer } from "./LogViewer";
import { showsRollback } from "./rollback";
import { RollbackPanel } from "./RollbackPanel";
import { RolloutActions } from "./RolloutActions";
import { RolloutPanel } from "./RolloutPanel";
import { DependentsFeedSubscription, DeploymentLiveSubscription, DeploymentPageQuery } from "./queries";
import { StepsTimeline } from "./StepsTimeline";
import styles from "./DeploymentPage.module.css";
import { FailureText } from "../../shared/FailureText";

/** One deploy, live: state, facts, plan, steps and the log as it is written. */
export function DeploymentPage() {
  const { id = "" } = useParams();
  // A new deploy is a new page: nothing of the previous one's state stays.
  return <DeploymentView key={id} id={id} />;
}

function DeploymentView({ id }: { id: string }) {
  const [result, refetch] = useQuery({ query: DeploymentPageQuery, variables: { id } });
  const [live, dispatch] = useReducer(liveReducer, emptyLive);
  // The subscription starts once, after the first answer, from the last
  // line that answer held; a reconnect resubscribes with the same start and
  // the duplicates are merged away by seq.
  const [logsAfter, setLogsAfter] = useState<number | null>(null);
  const [liveError, setLiveError] = useState<CombinedError | null>(null);

  const fetched = result.data?.deployment;
  useEffect(() => {
    if (!fetched) return;
    dispatch({ type: "deployment", deployment: fetched });
    dispatch({ type: "lines", lines: fetched.logs.lines });
    setLogsAfter((prev) => prev ?? fetched.logs.lastSeq);
  }, [fetched]);

  useSubscriptionEvents(
    DeploymentLiveSubscription,
    { id, logsAfter: logsAfter ?? 0 },
    (data) => {
      const e = data.deploymentEvents;
      dispatch({ type: "deployment", deployment: e.deployment });
      dispatch({ type: "lines", lines: e.logLines });
      setLiveError(null);
    },
    { pause: logsAfter === null, onError: setLiveError },
  );

  // The dependents' changes come from the activity feed, followed only while
  // one of them may still change or a new one is likely (this deploy has not
  // ended): the feed carries every readable deploy. A dependent submitted
  // after everything ended shows on the next load.
  const d = live.deployment;
  const watchDependents = !!d && (!isFinal(d.state) || d.dependents.some((dep) => dep.state && !isFinal(dep.state)));
  useSubscriptionEvents(DependentsFeedSubscription, {}, (data) => dispatch({ type: "changed", deployment: data.activity.deployment }), {
    pause: !watchDependents,
  });

  useOnReconnect(() => refetch({ requestPolicy: "network-only" }));

  if (!d) {
    if (result.error) return <ErrorMessage error={result.error} context="Loading the deploy" onRetry={() => refetch({ requestPolicy: "network-only" })} />;
    if (result.fetching || !result.data) return <Loading label="Loading the deploy…" />;
    return (
      <Empty title={`No deploy ${id}.`}>
        It does not exist, the retention removed it (finished deploys are kept 90 days by default, and the DORA metrics still count
        it), or your identity may not read it. <Link to="/deployments">All deploys</Link>
      </Empty>
    );
  }

  const final = isFinal(d.state);
  const title = `${d.application} → ${d.environment}`;
  // The wave whose approval the deploy waits for: its buttons are on the Rollout card.
  const asking = waveAwaitingApproval(d);
  return (
    <article className={styles.page} aria-labelledby="deployment-title">
      <nav aria-label="Breadcrumb" className={styles.crumbs}>
        {d.memberOf ? (
          <>
            <Link to="/releases">Releases</Link> <span aria-hidden="true">›</span>{" "}
            <Link to={`/releases/${encodeURIComponent(d.memberOf.id)}`} className="m-mono" data-testid="member-of">
              {d.memberOf.id}
            </Link>
          </>
        ) : (
          <Link to="/deployments">Deployments</Link>
        )}{" "}
        <span aria-hidden="true">›</span> <span className="m-mono">{d.id}</span>
      </nav>
      <header className={styles.header}>
        <div className={styles.headline}>
          <h1 id="deployment-title">{title}</h1>
          <StateBadge state={d.state} size="large" />
          {d.dryRun && <span className={styles.tag}>dry run</span>}
        </div>
        <div className={styles.actions}>
          <DeploymentActions deployment={d} />
          <CancelDeployment id={d.id} title={title} canCancel={d.canCancel && !final} cancelRequested={d.cancelRequested && !final} />
        </div>
      </header>
      <p className="m-muted">
        Tenant <strong>{d.tenant}</strong> · {d.artifact.name} <strong>{d.artifact.version}</strong> · requested by <span className="m-mono">{d.requester}</span>
        {d.memberOf && (
          <>
            {" "}
            · member of release{" "}
            <Link to={`/releases/${encodeURIComponent(d.memberOf.id)}`} className="m-inline-link">
              {d.memberOf.id}
            </Link>
          </>
        )}
        {d.currentStep && !final && (
          <>
            {" "}
            · on step <strong>{d.currentStep}</strong>
          </>
        )}
        {d.state === "DELAYED" && d.startAt && (
          <>
            {" "}
            · <StartsAt iso={d.startAt} />
          </>
        )}
      </p>
      {d.error && (
        <div className={styles.failure} data-failed={isFailed(d.state) || undefined} role={isFailed(d.state) ? "alert" : "note"}>
          <FailureText error={d.error} label={isFailed(d.state) ? "Failed:" : d.state === "CANCELLED" ? "Cancelled:" : "Note:"} />
        </div>
      )}
      {liveError && <ErrorMessage error={liveError} context="Following the deploy live" />}
      {d.approval && (
        <section className="m-card m-card-pad m-approval-section" aria-labelledby="approval-title" data-approval-status={d.approval.status}>
          <h2 id="approval-title" className={styles.cardTitle}>
            Approval
          </h2>
          {d.approvalContext && <ApprovalContextPanel context={d.approvalContext} />}
          <ApprovalSummary deployment={d} explained={!!d.approvalContext} />
          <ApprovalActions id={d.id} title={title} visible={d.canApprove && d.state === "AWAITING_APPROVAL"} />
        </section>
      )}
      <div className={styles.grid}>
        <div className={styles.side}>
          {d.after && <WaitsFor after={d.after} />}
          {d.dependents.length > 0 && <WaitedOnBy dependents={d.dependents} />}
          {d.exports.length > 0 && <Exports exports={d.exports} />}
          <DeploymentFacts deployment={d} />
        </div>
        <div className={styles.main}>
          {d.rollout && (
            <RolloutPanel
              rollout={d.rollout}
              actions={
                <>
                  <RolloutActions
                    id={d.id}
                    title={title}
                    rollout={d.rollout}
                    canPause={d.canPauseRollout && !final}
                    canResume={d.canResumeRollout && !final}
                    canAbort={d.canAbortRollout && !final}
                  />
                  {/* A wave awaiting approval is answered as a deploy's approval is. */}
                  <ApprovalActions
                    id={d.id}
                    title={title}
                    wave={{ name: asking?.wave.name ?? d.rollout.currentWave ?? "", release: `${d.artifact.name}-${d.artifact.version}` }}
                    visible={d.canApprove && asking !== null}
                  />
                </>
              }
            />
          )}
          <div className={styles.pipeline}>
            <section className="m-card" aria-labelledby="steps-title">
              <h2 id="steps-title" className={styles.cardTitle}>
                Steps
              </h2>
              <StepsTimeline plan={d.plan.steps} steps={d.steps} currentStep={d.currentStep} />
            </section>
            {d.rollback && showsRollback(d.state, d.rollback) && <RollbackPanel rollback={d.rollback} policy={d.effective.rollback} />}
          </div>
          <section className="m-card" aria-labelledby="log-title">
            <h2 id="log-title" className={styles.cardTitle}>
              Log
            </h2>
            <LogViewer lines={live.lines} live={!final} />
          </section>
        </div>
      </div>
    </article>
  );
}
