import { Component, lazy, Suspense, type ComponentType, type ReactNode } from "react";
import { Empty, Loading } from "../shared/Placeholder";

/**
 * A view loaded when it is first shown: each route is a chunk of its own,
 * so the first load carries only what the start page needs (the release
 * graph's layout library, dagre, comes with the release page alone, the
 * charting library, recharts, with the DORA page).
 */
function lazyView<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return lazy(() => load().then((m) => ({ default: m[name] })));
}

export const DeploymentsPage = lazyView(() => import("../features/deployments/DeploymentsPage"), "DeploymentsPage");
export const DeploymentPage = lazyView(() => import("../features/deployment/DeploymentPage"), "DeploymentPage");
export const ReleasesPage = lazyView(() => import("../features/releases/ReleasesPage"), "ReleasesPage");
export const ReleasePage = lazyView(() => import("../features/releases/ReleasePage"), "ReleasePage");
export const EnvironmentsPage = lazyView(() => import("../features/environments/EnvironmentsPage"), "EnvironmentsPage");
export const EnvironmentPage = lazyView(() => import("../features/environments/EnvironmentPage"), "EnvironmentPage");
export const ApprovalsPage = lazyView(() => import("../features/approvals/ApprovalsPage"), "ApprovalsPage");
export const SchedulesPage = lazyView(() => import("../features/schedules/SchedulesPage"), "SchedulesPage");
export const AuditPage = lazyView(() => import("../features/audit/AuditPage"), "AuditPage");
export const DoraPage = lazyView(() => import("../features/dora/DoraPage"), "DoraPage");
export const WallPage = lazyView(() => import("../features/wall/WallPage"), "WallPage");

interface BoundaryState {
  failed: boolean;
}

/**
 * A chunk that cannot be fetched (the network, or a server updated since the
 * page was loaded: the old chunk names are gone) is told, with a reload,
 * instead of a blank page.
 */
class ChunkBoundary extends Component<{ children: ReactNode }, BoundaryState> {
  override state: BoundaryState = { failed: false };

  static getDerivedStateFromError(): BoundaryState {
    return { failed: true };
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div role="alert">
        <Empty title="This view could not be loaded.">
          The network may be down, or manent was updated since this page was opened.{" "}
          <button type="button" className="m-button" onClick={() => window.location.reload()}>
            Reload
          </button>
        </Empty>
      </div>
    );
  }
}

/** Where a lazily loaded view shows: a calm line while its chunk arrives. */
export function ViewSlot({ children }: { children: ReactNode }) {
  return (
    <ChunkBoundary>
      <Suspense fallback={<Loading />}>{children}</Suspense>
    </ChunkBoundary>
  );
}
