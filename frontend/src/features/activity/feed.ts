import type { ActivityDeploymentFragment } from "../../gql/graphql";
import { isFinal } from "../../shared/states";

export type Feed = Map<string, ActivityDeploymentFragment>;

/** How many finished deploys the page keeps under "Finished recently". */
export const recentLimit = 25;

function isNewer(current: ActivityDeploymentFragment | undefined, next: ActivityDeploymentFragment): boolean {
  return !current || Date.parse(next.updatedAt) >= Date.parse(current.updatedAt);
}

/** An event of the activity feed: the deploy as it is now replaces what was known, unless older. */
export function applyEvent(feed: Feed, d: ActivityDeploymentFragment): Feed {
  if (!isNewer(feed.get(d.id), d)) return feed;
  const next = new Map(feed);
  next.set(d.id, d);
  return trim(next);
}

/**
 * A fresh read (first load, reconnect) is the truth for what it covers:
 * a deploy shown as running that the server no longer lists as active and
 * that is not among the recent ones ended while the page was away, and
 * is dropped rather than shown as running for ever.
 */
export function applySnapshot(feed: Feed, active: ActivityDeploymentFragment[], recent: ActivityDeploymentFragment[]): Feed {
  const next: Feed = new Map();
  const known = new Set([...active, ...recent].map((d) => d.id));
  for (const [id, d] of feed) if (isFinal(d.state) || known.has(id)) next.set(id, d);
  for (const d of [...recent, ...active]) if (isNewer(next.get(d.id), d)) next.set(d.id, d);
  return trim(next);
}

function byNewest(a: ActivityDeploymentFragment, b: ActivityDeploymentFragment): number {
  return Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.id.localeCompare(a.id);
}

/** Active deploys, running first, then finished ones, newest first, as many as the page keeps. */
export function split(feed: Feed): { active: ActivityDeploymentFragment[]; finished: ActivityDeploymentFragment[] } {
  const all = [...feed.values()];
  const active = all
    .filter((d) => !isFinal(d.state))
    .sort((a, b) => Number(b.state === "PENDING") - Number(a.state === "PENDING") || byNewest(a, b));
  const finished = all
    .filter((d) => isFinal(d.state))
    .sort((a, b) => Date.parse(b.finishedAt ?? b.updatedAt) - Date.parse(a.finishedAt ?? a.updatedAt))
    .slice(0, recentLimit);
  return { active, finished };
}

function trim(feed: Feed): Feed {
  const { finished } = split(feed);
  if (finished.length < recentLimit) return feed;
  const keep = new Set(finished.map((d) => d.id));
  for (const [id, d] of feed) if (isFinal(d.state) && !keep.has(id)) feed.delete(id);
  return feed;
}
