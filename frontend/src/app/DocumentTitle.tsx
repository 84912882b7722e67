import { useEffect } from "react";
import { useLocation } from "react-router";

const titles: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^\/signin/, () => "Sign in"],
  [/^\/activity/, () => "Activity"],
  [/^\/deployments\/([^/]+)/, (m) => `Deploy ${decodeURIComponent(m[1] ?? "")}`],
  [/^\/deployments/, () => "Deployments"],
  [/^\/releases\/([^/]+)/, (m) => `Release ${decodeURIComponent(m[1] ?? "")}`],
  [/^\/releases/, () => "Releases"],
  [/^\/environments\/[^/]+\/([^/]+)\/([^/]+)/, (m) => `Freezes ${decodeURIComponent(m[1] ?? "")} → ${decodeURIComponent(m[2] ?? "")}`],
  [/^\/environments/, () => "Environments"],
  [/^\/dora/, () => "DORA"],
  [/^\/wall/, () => "Wall"],
];

/** The tab title follows the view, so tabs and history entries can be told apart. */
export function DocumentTitle() {
  const { pathname } = useLocation();
  useEffect(() => {
    for (const [re, title] of titles) {
      const m = pathname.match(re);
      if (m) {
        document.title = `${title(m)} · manent`;
        return;
      }
    }
    document.title = "manent";
  }, [pathname]);
  return null;
}
