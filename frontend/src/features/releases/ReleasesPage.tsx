import { Link } from "react-router";
import { useQuery } from "urql";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { PageHeader } from "../../shared/Layout";
import { Empty, Loading } from "../../shared/Placeholder";
import { Time } from "../../shared/time";
import { ReleasesPageQuery } from "./queries";
import { ReleaseStateBadge } from "./ReleaseStateBadge";
import styles from "./Releases.module.css";
import { FailureText } from "../../shared/FailureText";

/** Every release the viewer may read, newest first; a release opens its graph. */
export function ReleasesPage() {
  const [result, refetch] = useQuery({ query: ReleasesPageQuery, variables: { first: 100 } });
  const releases = result.data?.releases.nodes;
  return (
    <>
      <PageHeader
        title="Releases"
        subtitle="Composite releases (kind: Release): several deploys and the order between them, newest first."
        actions={
          <button type="button" className="m-button" onClick={() => refetch({ requestPolicy: "network-only" })}>
            Refresh
          </button>
        }
      />
      <section className="m-card" aria-label="Releases" aria-busy={result.fetching}>
        {result.error && !releases ? (
          <div className="m-card-pad">
            <ErrorMessage error={result.error} context="Loading the releases" onRetry={() => refetch({ requestPolicy: "network-only" })} />
          </div>
        ) : !releases ? (
          <Loading label="Loading the releases…" />
        ) : releases.length === 0 ? (
          <Empty title="No releases yet.">Submit one with the CLI: manent release submit -f release.yml</Empty>
        ) : (
          <div className="m-table-wrap">
            <table className="m-table">
              <thead>
                <tr>
                  <th scope="col">State</th>
                  <th scope="col">Release</th>
                  <th scope="col">Deploys</th>
                  <th scope="col">On failure</th>
                  <th scope="col">Requester</th>
                  <th scope="col">Created</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {releases.map((r) => {
                  const done = r.deploys.filter((d) => d.state === "SUCCESS").length;
                  return (
                    <tr key={r.id} data-release-id={r.id} data-state={r.state}>
                      <td>
                        <ReleaseStateBadge state={r.state} size="small" />
                      </td>
                      <td>
                        <Link to={`/releases/${encodeURIComponent(r.id)}`} className="m-mono">
                          {r.id}
                        </Link>
                      </td>
                      <td className="m-nowrap">
                        {done} of {r.deploys.length} succeeded
                      </td>
                      <td>{r.onFailure}</td>
                      <td className="m-mono m-nowrap">{r.requester}</td>
                      <td>
                        <Time iso={r.createdAt} />
                      </td>
                      <td className={`m-ellipsis ${r.error ? styles.errorText : "m-muted"}`}>{r.error ? <FailureText error={r.error} brief /> : ""}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
