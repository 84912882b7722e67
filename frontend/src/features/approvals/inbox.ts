import type { ApprovalViewFragment, DeploymentState, RolloutState, WaveState } from "../../gql/graphql";
import type { Tone } from "../../shared/states";

export type ApprovalItem = ApprovalViewFragment;

/** An approval as the inbox explains it: a deploy's own, or a wave's (which also names roles). */
export type ApprovalLike = Omit<NonNullable<ApprovalItem["approval"]>, "remaining"> & { remaining?: number; roles?: readonly string[] };

/** The wave of a rollout that asks an approval, and its place among the waves. */
export interface AskingWave {
  name: string;
  /** From 1. */
  index: number;
  total: number;
}

/** The least of a deploy that tells whether a wave of its rollout awaits approval. */
export interface RolloutAsking<W extends { name: string; state: WaveState }> {
  state: DeploymentState;
  rollout: { state: RolloutState; waves: readonly W[] } | null;
}

/**
 * The wave whose approval the deploy waits for, as the server's canApprove
 * reads it: the deploy PENDING (it keeps its slot), its rollout awaiting
 * approval, and the wave that does; null otherwise.
 */
export function waveAwaitingApproval<W extends { name: string; state: WaveState }>(d: RolloutAsking<W>): { wave: W; index: number; total: number } | null {
  const r = d.rollout;
  if (d.state !== "PENDING" || !r || r.state !== "AWAITING_APPROVAL") return null;
  const i = r.waves.findIndex((w) => w.state === "AWAITING_APPROVAL");
  const wave = r.waves[i];
  return wave ? { wave, index: i + 1, total: r.waves.length } : null;
}

/**
 * The approval the deploy asks now: its own while AWAITING_APPROVAL, or
 * that of the wave awaiting approval; null when it asks none.
 */
export function askedApproval(d: Pick<ApprovalItem, "state" | "approval" | "rollout">): { wave: AskingWave | null; approval: ApprovalLike | null } | null {
  if (d.state === "AWAITING_APPROVAL") return { wave: null, approval: d.approval };
  const w = waveAwaitingApproval(d);
  if (!w) return null;
  return { wave: { name: w.wave.name, index: w.index, total: w.total }, approval: w.wave.approval };
}

/** The number on the Approvals link: the deploys waiting for the viewer's answer. */
export function badgeCount(items: readonly ApprovalItem[]): number {
  return items.filter(canAnswer).length;
}

/** The badge's text: nothing at zero, and no wall of digits. */
export function badgeText(count: number): string | undefined {
  if (count <= 0) return undefined;
  return count > 99 ? "99+" : String(count);
}

/**
 * Whether Approve and Reject are shown: the server's canApprove (permission,
 * not the requester, no answer yet), while the deploy, or a wave of its
 * rollout, still waits.
 */
export function canAnswer(d: Pick<ApprovalItem, "canApprove" | "state" | "rollout">): boolean {
  return d.canApprove && (d.state === "AWAITING_APPROVAL" || waveAwaitingApproval(d) !== null);
}

/**
 * The tone of an approval status. The server's vocabulary may grow
 * (cancelled, ...): any status but these reads as neutral, never as waiting.
 */
export function approvalStatusTone(status: string): Tone {
  switch (status) {
    case "waiting":
      return "waiting";
    case "approved":
      return "success";
    case "rejected":
    case "expired":
      return "danger";
    default:
      return "neutral";
  }
}

/** The status as the server gives it, capitalized: "waiting" → "Waiting". */
export function approvalStatusLabel(status: string): string {
  return status ? status.charAt(0).toUpperCase() + status.slice(1) : "Unknown";
}

/** Distinct identities that approved. */
export function approvedCount(d: { approval: ApprovalLike | null }): number {
  const a = d.approval;
  if (!a) return 0;
  return new Set(a.approvals.filter((x) => x.approved).map((x) => x.identity)).size;
}

/** How many approvals are still missing. */
export function missingApprovals(d: { approval: ApprovalLike | null }): number {
  if (!d.approval) return 0;
  return Math.max(d.approval.required - approvedCount(d), 0);
}

function plural(n: number, one: string, many = one + "s"): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The governance decision in sentences, in the order a reviewer asks: why
 * it waits, what it needs, where it stands. Expiry is shown by the caller
 * (a live relative time). For the approval of a wave (d.approval is then
 * the wave's), what it needs is the wave's: the change ticket, the
 * promotion and the freeze were the deploy's conditions to start, already
 * met, and are left out.
 */
export function explainDecision(
  d: { decision: ApprovalItem["decision"]; approval: ApprovalLike | null },
  wave: AskingWave | null = null,
  /** The server's explanation of the rule is shown beside: only the count so far is said here. */
  explained = false,
): string[] {
  const out: string[] = [];
  const dec = d.decision;
  if (explained && !wave) return soFar(d);
  if (wave) out.push(`Wave ${wave.name} (${wave.index} of ${wave.total}) of the rollout waits for approval before it starts.`);
  if (dec.rule) out.push(`Rule ${dec.rule} matched${dec.reason ? `: ${dec.reason}` : "."}`);
  else if (dec.reason) out.push(dec.reason);
  const required = d.approval?.required ?? (wave ? 0 : (dec.approvalsRequired ?? 0));
  if (required > 0) {
    const groups = d.approval?.groups.length ? d.approval.groups : wave ? [] : (dec.approvalGroups ?? []);
    const from = [...groups.map((g) => `group ${g}`), ...(d.approval?.roles ?? []).map((r) => `role ${r}`)];
    let need = `Requires ${plural(required, "approval")} by ${required === 1 ? "an identity" : "identities"} other than the requester`;
    if (from.length > 0) need += `, from ${from.join(" or ")}`;
    out.push(need + ".");
  }
  if (!wave) {
    if (dec.change) out.push(`Requires an approved change ticket (${dec.change}).`);
    if (dec.promotionFrom) {
      out.push(`Promotion from ${dec.promotionFrom} satisfied${dec.promotionSatisfiedBy ? ` by ${dec.promotionSatisfiedBy}` : ""}.`);
    }
    if (dec.freeze) out.push(`Accepted during freeze window ${dec.freeze} with an override.`);
  }
  return [...out, ...soFar(d)];
}

/** How many approved so far, and how many more are needed while it waits. */
function soFar(d: { approval: ApprovalLike | null }): string[] {
  if (!d.approval) return [];
  const missing = missingApprovals(d);
  let so = `${approvedCount(d)} of ${d.approval.required} approved so far`;
  if (d.approval.status === "waiting" && missing > 0) so += `; ${plural(missing, "more approval")} needed`;
  return [so + "."];
}

/** The inbox's order: the approval that expires first comes first (a deploy's or a wave's), then the oldest deploy. */
export function sortInbox(items: readonly ApprovalItem[]): ApprovalItem[] {
  const key = (d: ApprovalItem) => askedApproval(d)?.approval?.expiresAt ?? "\uffff";
  return [...items].sort((a, b) => key(a).localeCompare(key(b)) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}
