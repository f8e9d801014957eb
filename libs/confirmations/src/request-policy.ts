import { argsReadBy, type AgentHookSettings, type PolicyInForce, type ToolCallMetadata } from '@warden/hooks';
import { policyInForce, policyVersion, requirementOf } from '@warden/policy';

/** What a new confirmation row records of the policy: who may approve, which tier applied, how many approvals. */
export interface RequestPolicy {
  approvers: string[];
  tier: number | null;
  approvalsRequired: number;
  decisiveFields: string[];
  /** The policy itself and its version: an edit is re-tiered under it, and grants are given under its version. */
  policy: PolicyInForce;
  policyVersion: string;
}

/**
 * Fixes the policy for one request from the agent's (or workflow node's) `confirmation` settings and the args, by
 * the kernel's rule (libs/policy `requirementOf`).
 */
export function requestPolicy(
  confirmation: AgentHookSettings['confirmation'],
  args: Record<string, unknown>,
  metadata: Pick<ToolCallMetadata, 'confirmationWhen'>,
  channelHasList: boolean,
): RequestPolicy {
  const policy = policyInForce(confirmation);
  const required = requirementOf(policy, args, channelHasList);
  const decisive = new Set([
    ...argsReadBy(metadata.confirmationWhen),
    ...policy.tiers.flatMap((t) => argsReadBy(t.when)),
  ]);
  return {
    approvers: required.approvers,
    tier: required.tier,
    approvalsRequired: required.approvals,
    decisiveFields: [...decisive].filter((f) => f in args),
    policy,
    policyVersion: policyVersion(policy),
  };
}
