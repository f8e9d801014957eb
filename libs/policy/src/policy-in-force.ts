import { createHash } from 'node:crypto';
import { canonicalJson } from '@warden/common';
import { matchTier, type AgentHookSettings, type PolicyInForce } from '@warden/hooks';

/** What the policy asks of one action: the tier its args fall in, how many distinct approvals, from whom. */
export interface Requirement {
  tier: number | null;
  approvals: number;
  approvers: string[];
}

/**
 * The approver policy of an agent (or workflow node) as the kernel reads it: only what decides who may allow an
 * action and how many must (deadlines, channels and reminders change no one's power).
 */
export function policyInForce(
  confirmation: Pick<AgentHookSettings['confirmation'], 'approvers' | 'approverScope' | 'forbidSelfApproval' | 'tiers'>,
): PolicyInForce {
  return {
    approvers: confirmation.approvers ?? null,
    approverScope: confirmation.approverScope,
    forbidSelfApproval: confirmation.forbidSelfApproval,
    tiers: (confirmation.tiers ?? []).map((t) => ({
      when: t.when,
      approvals: t.approvals,
      ...(t.approvers ? { approvers: t.approvers } : {}),
    })),
  };
}

/**
 * The policy version grants are given under:
 * a digest of its canonical form (any change makes old grants count nothing).
 */
export function policyVersion(policy: PolicyInForce): string {
  return createHash('sha256').update(canonicalJson(policy)).digest('hex').slice(0, 32);
}

/**
 * The tier `args` fall in and what it requires (the first tier whose CEL holds; one that cannot be evaluated holds —
 * the stricter path). Without `approvers`, the seed-compatible default: the channel's list when the channel has one,
 * else the legacy scope.
 */
export function requirementOf(
  policy: PolicyInForce,
  args: Record<string, unknown>,
  channelHasList = false,
): Requirement {
  const base = policy.approvers ?? (channelHasList ? ['channel'] : [policy.approverScope]);
  // Evaluated on the args as JSON states them (what the digest covers): CEL refuses objects of another realm or
  // prototype (e.g. a structuredClone made outside a VM context), and a refusal would silently pick the strictest tier.
  const matched = policy.tiers.length
    ? matchTier(policy.tiers, JSON.parse(JSON.stringify(args)) as Record<string, unknown>)
    : null;
  return {
    tier: matched?.index ?? null,
    approvals: matched?.tier.approvals ?? 1,
    approvers: matched?.tier.approvers ?? base,
  };
}
