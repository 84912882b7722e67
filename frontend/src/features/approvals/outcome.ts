/** The approval as a mutation answers it: the deploy's own, or a wave's of its rollout. */
export interface AnsweredApproval {
  approval: { status: string; remaining: number } | null;
  rollout: { waves: { name: string; approval: { status: string; required: number; approvals: { approved: boolean }[] } | null }[] } | null;
}

/**
 * What happens next, said after an approve or a reject, so the card does not
 * vanish without a word: "1 more approval needed", "approved: the deploy
 * starts now", "rejected: the deploy will not run".
 */
export function answerOutcome(answer: AnsweredApproval, rejected: boolean, wave?: string): string {
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
  return `Approved: ${subject} starts now.`;
}
