import type { ApprovalViewFragment } from "../../gql/graphql";
import type { Tone } from "../../shared/states";

export type ApprovalItem = ApprovalViewFragment;

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
 * not the requester, no answer yet), while the deploy still waits.
 */
export function canAnswer(d: Pick<ApprovalItem, "canApprove" | "state">): boolean {
  return d.canApprove && d.state === "AWAITING_APPROVAL";
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
export function approvedCount(d: Pick<ApprovalItem, "approval">): number {
  const a = d.approval;
  if (!a) return 0;
  return new Set(a.approvals.filter((x) => x.approved).map((x) => x.identity)).size;
}

/** How many approvals are still missing. */
export function missingApprovals(d: Pick<ApprovalItem, "approval">): number {
  if (!d.approval) return 0;
  return Math.max(d.approval.required - approvedCount(d), 0);
}

function plural(n: number, one: string, many = one + "s"): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The governance decision in sentences, in the order a reviewer asks: why
 * it waits, what it needs, where it stands. Expiry is shown by the caller
 * (a live relative time).
 */
export function explainDecision(d: Pick<ApprovalItem, "decision" | "approval">): string[] {
  const out: string[] = [];
  const dec = d.decision;
  if (dec.rule) out.push(`Rule ${dec.rule} matched${dec.reason ? `: ${dec.reason}` : "."}`);
  else if (dec.reason) out.push(dec.reason);
  const required = d.approval?.required ?? dec.approvalsRequired ?? 0;
  if (required > 0) {
    const groups = d.approval?.groups.length ? d.approval.groups : (dec.approvalGroups ?? []);
    let need = `Requires ${plural(required, "approval")} by ${required === 1 ? "an identity" : "identities"} other than the requester`;
    if (groups.length > 0) need += `, from ${groups.length === 1 ? "group" : "groups"} ${groups.join(", ")}`;
    out.push(need + ".");
  }
  if (dec.change) out.push(`Requires an approved change ticket (${dec.change}).`);
  if (dec.promotionFrom) {
    out.push(`Promotion from ${dec.promotionFrom} satisfied${dec.promotionSatisfiedBy ? ` by ${dec.promotionSatisfiedBy}` : ""}.`);
  }
  if (dec.freeze) out.push(`Accepted during freeze window ${dec.freeze} with an override.`);
  if (d.approval) {
    const missing = missingApprovals(d);
    let so = `${approvedCount(d)} of ${d.approval.required} approved so far`;
    if (d.approval.status === "waiting" && missing > 0) so += `; ${plural(missing, "more approval")} needed`;
    out.push(so + ".");
  }
  return out;
}

/** The inbox's order: the deploy that expires first comes first, then the oldest. */
export function sortInbox(items: readonly ApprovalItem[]): ApprovalItem[] {
  const key = (d: ApprovalItem) => d.approval?.expiresAt ?? "\uffff";
  return [...items].sort((a, b) => key(a).localeCompare(key(b)) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}
