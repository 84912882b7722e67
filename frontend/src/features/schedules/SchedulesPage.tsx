import { Link } from "react-router";
import { useMutation, useQuery } from "urql";
import type { SchedulesPageQuery as SchedulesData } from "../../gql/graphql";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { PageHeader } from "../../shared/Layout";
import { Empty, Loading } from "../../shared/Placeholder";
import { Time } from "../../shared/time";
import { ConfirmedAction } from "../actions/ConfirmedAction";
import { deleteScheduleText } from "../actions/copy";
import { DeleteScheduleMutation } from "../actions/queries";
import { SchedulesPageQuery } from "./queries";

type Schedule = SchedulesData["schedules"][number];

/** The recurring schedules: what runs where, the next tick, the last run and its error. */
export function SchedulesPage() {
  const [result, refetch] = useQuery({ query: SchedulesPageQuery });
  const schedules = result.data?.schedules;
  return (
    <>
      <PageHeader
        title="Schedules"
        subtitle="The recurring schedules (schedule.cron): every tick starts a deploy as the identity that last submitted the descriptor."
      />
      {result.error && <ErrorMessage error={result.error} context="Loading the schedules" onRetry={() => refetch({ requestPolicy: "network-only" })} />}
      {!schedules && !result.error && <Loading label="Loading the schedules…" />}
      {schedules && schedules.length === 0 && (
        <div className="m-card">
          <Empty title="No recurring schedule.">A descriptor with schedule.cron creates one when it is submitted.</Empty>
        </div>
      )}
      {schedules && schedules.length > 0 && (
        <div className="m-card m-table-wrap">
          <table className="m-table" aria-label="Schedules">
            <thead>
              <tr>
                <th scope="col">Schedule</th>
                <th scope="col">Where</th>
                <th scope="col">Cron</th>
                <th scope="col">Next tick</th>
                <th scope="col">Last run</th>
                <th scope="col">
                  <span className="m-visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {schedules.map((s) => (
                <ScheduleRow key={s.name} schedule={s} onDeleted={() => refetch({ requestPolicy: "network-only" })} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function ScheduleRow({ schedule: s, onDeleted }: { schedule: Schedule; onDeleted(): void }) {
  const [, remove] = useMutation(DeleteScheduleMutation);
  return (
    <tr data-schedule={s.name} data-state={s.state}>
      <td>
        <strong>{s.name}</strong>
        <div className="m-muted">
          by <span className="m-mono">{s.requester}</span>
        </div>
      </td>
      <td>
        <Link to={`/environments/${encodeURIComponent(s.tenant)}/${encodeURIComponent(s.application)}/${encodeURIComponent(s.environment)}`}>
          {s.application} → {s.environment}
        </Link>
      </td>
      <td className="m-mono">
        {s.cron} <span className="m-muted">{s.timezone}</span>
      </td>
      <td>{s.state === "DELETED" ? <span className="m-muted">deleted</span> : <Time iso={s.nextTick} mode="both" empty="not computed yet" />}</td>
      <td>
        <Time iso={s.lastTick} empty="never" />
        {s.lastDeployment && (
          <div className="m-mono">
            <Link to={`/deployments/${encodeURIComponent(s.lastDeployment)}`}>{s.lastDeployment}</Link>
          </div>
        )}
        {s.lastError && (
          <div role="note" data-testid="schedule-error">
            Last error:{" "}
            {s.lastError}
          </div>
        )}
      </td>
      <td>
        {s.canDelete && s.state !== "DELETED" && (
          <ConfirmedAction
            testId={`delete-schedule-${s.name}`}
            label="Delete…"
            title={`Delete schedule ${s.name}?`}
            confirmLabel="Delete schedule"
            danger
            text={deleteScheduleText(s)}
            context="Deleting the schedule"
            run={async () => {
              const r = await remove({ name: s.name });
              if (!r.error) onDeleted();
              return r;
            }}
          />
        )}
      </td>
    </tr>
  );
}
