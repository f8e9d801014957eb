import {
  actionDigest,
  CONFIRMATION_GATE,
  EXTERNAL_HOOK_NOT_RUN,
  type AgentHookSettings,
  type PreToolUseVerdict,
} from '@warden/hooks';
import { policyInForce, requirementOf } from '@warden/policy';

/**
 * What a policy decides for one call: allow, ask a human (how many approvals, which tier) or block; what would be
 * sent.
 */
export interface Decision {
  decision: 'allow' | 'ask' | 'block';
  /** Distinct approvals the policy requires (0 unless it asks). */
  approvals: number;
  tier: number | null;
  blocked_by: string | null;
  reason: string | null;
  /** actionDigest of the args as the chain left them. */
  args_digest: string;
  rewritten: boolean;
}

/** How a candidate's decision differs from the one it is compared with (a call may differ in several ways). */
export type Difference =
  'would_block' | 'would_unblock' | 'would_ask' | 'would_not_ask' | 'approvals_changed' | 'rewrite_changed';

/**
 * The decision a PreToolUse verdict amounts to. The gate ran (or would have, in a dry run) → `ask`, whatever the
 * human then said (a denial is the human's decision, not the policy's); any other stop → `block`. The requirement
 * comes from the kernel (`requirementOf` on the final args under the policy in force).
 */
export function decisionOf(
  tool: string,
  modelArgs: Record<string, unknown>,
  verdict: PreToolUseVerdict,
  agent?: AgentHookSettings,
): Decision {
  const gate =
    verdict.wouldRequireConfirmation || !!verdict.parked || verdict.outcomes.some((o) => o.hook === CONFIRMATION_GATE);
  const decision =
    !verdict.allow && !(gate && verdict.blockedBy === CONFIRMATION_GATE) ? 'block' : gate ? 'ask' : 'allow';
  const digest = actionDigest(tool, verdict.args);
  const requirement =
    decision === 'ask' && agent ? requirementOf(policyInForce(agent.confirmation), verdict.args) : null;
  return {
    decision,
    approvals: decision === 'ask' ? (requirement?.approvals ?? 1) : 0,
    tier: requirement?.tier ?? null,
    blocked_by: decision === 'block' ? (verdict.blockedBy ?? null) : null,
    reason: decision === 'block' ? (verdict.error ?? null) : null,
    args_digest: digest,
    // The chain passes the model's args on as they are unless a hook rewrites them: then no second digest is needed.
    rewritten: verdict.args !== modelArgs && digest !== actionDigest(tool, modelArgs),
  };
}

/** The command and HTTP hooks an evaluation without side effects did not run (their verdict is unknown). */
export function skippedHooks(verdict: PreToolUseVerdict): string[] {
  return verdict.outcomes.filter((o) => o.sideEffects.includes(EXTERNAL_HOOK_NOT_RUN)).map((o) => o.hook);
}

/** How `candidate` differs from `base` (empty when they decide alike). */
export function differences(base: Decision, candidate: Decision): Difference[] {
  const out: Difference[] = [];
  if (candidate.decision === 'block' && base.decision !== 'block') out.push('would_block');
  if (base.decision === 'block' && candidate.decision !== 'block') out.push('would_unblock');
  if (candidate.decision === 'ask' && base.decision === 'allow') out.push('would_ask');
  if (base.decision === 'ask' && candidate.decision === 'allow') out.push('would_not_ask');
  if (base.decision === 'ask' && candidate.decision === 'ask' && base.approvals !== candidate.approvals)
    out.push('approvals_changed');
  if (base.decision !== 'block' && candidate.decision !== 'block' && base.args_digest !== candidate.args_digest)
    out.push('rewrite_changed');
  return out;
}
