import { formatAbsolute } from "../../shared/time";

/** What a deploy is called in a confirmation: "hello 1.1.0 (hello-staging-b2d1)". */
export interface DeployRef {
  id: string;
  application: string;
  environment: string;
  artifact: { name: string; version: string };
}

export function promoteText(d: DeployRef, to: string): string {
  return (
    `Promote ${d.artifact.name} ${d.artifact.version} (${d.id}) from ${d.environment} to ${to}: ` +
    `a new deploy of the same artifact and descriptor runs in ${to}, without the source's after and deployment imports; ` +
    `the ${to} governance applies (approvals, freeze windows, mandatory promotion).`
  );
}

export function redeployText(d: DeployRef & { dryRun?: boolean }): string {
  return (
    `Redeploy ${d.artifact.name} ${d.artifact.version} (${d.id}) in ${d.environment}: ` +
    `a new deploy runs the same artifact and descriptor again${d.dryRun ? " (as a dry run, as this one was)" : ""}; ` +
    `the ${d.environment} governance applies.`
  );
}

export interface RollbackRef {
  id: string;
  application: string;
  environment: string;
  version: string;
  deployedBy?: string | null | undefined;
  deployedAt?: string | null | undefined;
}

export function rollbackText(r: RollbackRef): string {
  const who = r.deployedBy ? `, deployed by ${r.deployedBy}` : "";
  const when = r.deployedAt ? ` on ${formatAbsolute(r.deployedAt)}` : "";
  return (
    `Roll back ${r.application} in ${r.environment} to ${r.version} (${r.id})${who}${when}: ` +
    `a new deploy runs that release's artifact, the bytes that were in service; the ${r.environment} governance applies.`
  );
}

export function cancelReleaseText(id: string, open: number): string {
  const deploys = open === 1 ? "its 1 deploy" : `its ${open} deploys`;
  return (
    `Cancel release ${id}: it stops starting deploys, then ${deploys} not finished yet are cancelled ` +
    `(each stops at the start of its next step; a step in progress completes). This cannot be undone.`
  );
}

export interface ScheduleRef {
  name: string;
  application: string;
  environment: string;
  cron: string;
  timezone: string;
}

export function deleteScheduleText(s: ScheduleRef): string {
  return (
    `Delete schedule ${s.name} (${s.cron}, ${s.timezone}) of ${s.application} → ${s.environment}: ` +
    `no further tick starts a deploy; the deploys already started go on. This cannot be undone.`
  );
}
