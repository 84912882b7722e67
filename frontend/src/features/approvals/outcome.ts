import { formatAbsolute } from "../../shared/time";

/** The approval as a mutation answers it: the deploy's own, or a wave's of its rollout. */
export interface AnsweredApproval {
  /** The deploy's environment and state, and what still holds it once approved (ApprovalView). */
  environment?: string;
  state?: string;
  startAt?: string | null;
  decision?: { change?: string | null } | null;
  approval: { status: string; remaining: number } | null;
  rollout: { waves: { name: string; approval: { status: string; required: number; approvals: { approved: boolean }[] } | null }[] } | null;
}

/**
 * What happens next, said after an approve or a reject, so the card does not
 * vanish without a word: "1 more approval needed", what still holds an
 * approved deploy (its schedule.at, the queue of its environment, a change
 * ticket to be approved), "rejected: the deploy will not run".
 */
export function answerOutcome(answer: AnsweredApproval, rejected: boolean, wave?: string, now: number = Date.now()): string {
  const subject = wave ? `wave ${wave}` : "the deploy";
  if (rejected) return wave ? `Rejected: wave ${wave} will not start; the rollout aborts.` : "Rejected: the deploy will not run.";
  let status = answer.approval?.status ?? "";
  let remaining = answer.approval?.remaining ?? 0;
  if (wave) {
    const a = answer.rollout?.waves.find((w) => w.name === wave)?.approval;
    status = a?.status ?? "";
    remaining = a ? Math.max(0, a.required - a.approvals.filter((x) => x.approved).length) : 0;
  }
  if (status === "rejected") return `Rejected by another approver: ${subject} will not run.`;
  if (remaining > 0) return `Your approval counts: ${remaining === 1 ? "1 more approval" : `${remaining} more approvals`} needed before ${subject} starts.`;
  // A running rollout goes on with the wave: it holds its environment already.
  if (wave) return `Approved: wave ${wave} starts now.`;
  return `Approved: ${approvedNext(answer, now)}`;
}

/** What an approved deploy waits for still, in the order it meets them. */
function approvedNext(d: AnsweredApproval, now: number): string {
  if (d.state === "PENDING") return "the deploy is running.";
  const where = d.environment ? ` of ${d.environment}` : "";
  const start = d.startAt ? Date.parse(d.startAt) : Number.NaN;
  let next =
    start > now
      ? `the deploy waits until ${formatAbsolute(d.startAt ?? "")} (its schedule), then joins the queue${where}: it starts when no other deploy runs there.`
      : `the deploy joins the queue${where}: it starts when no other deploy runs there.`;
  if (d.decision?.change) next += ` It then opens a change ticket in ${d.decision.change}: nothing runs until the ticket is approved.`;
  return next;
}
