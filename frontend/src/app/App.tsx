import { BrowserRouter, Link, Navigate, Outlet, Route, Routes, useLocation } from "react-router";
import { useQuery } from "urql";
import { ActivityPage } from "../features/activity/ActivityPage";
import { badgeCount, badgeText } from "../features/approvals/inbox";
import { PendingApprovalsProvider, usePendingApprovals } from "../features/approvals/PendingApprovals";
import { SignInPage } from "../features/signin/SignInPage";
import { graphql } from "../gql";
import { ApiProvider } from "../shared/api/ApiProvider";
import { SessionProvider, useSession } from "../shared/api/session";
import { Layout, type NavItem } from "../shared/Layout";
import { Empty } from "../shared/Placeholder";
import { DocumentTitle } from "./DocumentTitle";
import {
  ApprovalsPage,
  SchedulesPage,
  AuditPage,
  DeploymentPage,
  DoraPage,
  DeploymentsPage,
  EnvironmentPage,
  EnvironmentsPage,
  ReleasePage,
  ReleasesPage,
  ViewSlot,
  WallPage,
} from "./pages";

const ViewerQuery = graphql(`
  query AppViewer {
    viewer {
      subject
    }
  }
`);

const nav: NavItem[] = [
  { to: "/activity", label: "Activity" },
  { to: "/deployments", label: "Deployments" },
  { to: "/releases", label: "Releases" },
  { to: "/environments", label: "Environments" },
  { to: "/approvals", label: "Approvals" },
  { to: "/schedules", label: "Schedules" },
  { to: "/audit", label: "Audit" },
  { to: "/dora", label: "DORA" },
  { to: "/wall", label: "Wall" },
];

/** The frame of the signed-in views but the wall, with the identity from the server. */
function Framed() {
  return (
    <PendingApprovalsProvider>
      <Frame />
    </PendingApprovalsProvider>
  );
}

function Frame() {
  const { signOut } = useSession();
  const [viewer] = useQuery({ query: ViewerQuery, requestPolicy: "cache-first" });
  const count = badgeCount(usePendingApprovals().items);
  const items = nav.map((item) =>
    item.to === "/approvals" ? { ...item, badge: badgeText(count), badgeLabel: `${count} awaiting your approval` } : item,
  );
  return (
    <Layout
      nav={items}
      subject={viewer.data?.viewer.subject}
      onSignOut={() => void signOut()}
      onSignOutEverywhere={() => void signOut({ everywhere: true, reason: "You signed out in every browser." })}
    >
      <ViewSlot>
        <Outlet />
      </ViewSlot>
    </Layout>
  );
}

function NotFound() {
  return (
    <Empty title="There is no such page.">
      <Link to="/activity">Go to the activity</Link>
    </Empty>
  );
}

/** Every view but sign-in needs a session; without one, sign in and come back. */
function SignedIn() {
  const { status, identity, loadError } = useSession();
  const location = useLocation();
  if (status === "loading") return <SessionLoading error={loadError} />;
  if (status === "signedOut" || !identity) {
    const next = location.pathname + location.search;
    return <Navigate to={`/signin?next=${encodeURIComponent(next)}`} replace />;
  }
  return (
    <ApiProvider key={identity.subject}>
      <Routes>
        <Route
          path="/wall"
          element={
            <ViewSlot>
              <WallPage />
            </ViewSlot>
          }
        />
        <Route path="/" element={<Navigate to="/activity" replace />} />
        <Route element={<Framed />}>
          <Route path="/activity" element={<ActivityPage />} />
          <Route path="/deployments" element={<DeploymentsPage />} />
          <Route path="/deployments/:id" element={<DeploymentPage />} />
          <Route path="/releases" element={<ReleasesPage />} />
          <Route path="/audit" element={<AuditPage />} />
          <Route path="/dora" element={<DoraPage />} />
          <Route path="/releases/:id" element={<ReleasePage />} />
          <Route path="/environments" element={<EnvironmentsPage />} />
          <Route path="/environments/:tenant/:application/:environment" element={<EnvironmentPage />} />
          <Route path="/approvals" element={<ApprovalsPage />} />
          <Route path="/schedules" element={<SchedulesPage />} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
    </ApiProvider>
  );
}

function SignInRoute() {
  const { status, loadError } = useSession();
  const location = useLocation();
  if (status === "loading") return <SessionLoading error={loadError} />;
  if (status === "signedIn") {
    const next = new URLSearchParams(location.search).get("next");
    return <Navigate to={next && next.startsWith("/") && !next.startsWith("//") ? next : "/activity"} replace />;
  }
  return <SignInPage />;
}

/** While the server is asked who is signed in: nothing to show, unless it cannot be reached. */
function SessionLoading({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <div className="m-error" role="alert" data-code="NETWORK">
      <p className="m-error-title">The server cannot be reached.</p>
      <p className="m-error-detail">Reload the page in a moment.</p>
    </div>
  );
}

export function App() {
  return (
    <SessionProvider>
      <BrowserRouter>
        <DocumentTitle />
        <Routes>
          <Route path="/signin" element={<SignInRoute />} />
          <Route path="*" element={<SignedIn />} />
        </Routes>
      </BrowserRouter>
    </SessionProvider>
  );
}
