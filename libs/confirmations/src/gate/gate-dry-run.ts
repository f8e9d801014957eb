import { type AgentHookSettings, type ToolCallMetadata } from '@warden/hooks';
import { policyInForce, requirementOf } from '@warden/policy';

/**
 * What the gate would do, for a dry run: the kernel's requirement for these args (the tier that applies, how many
 * approvals, from whom) is left in `metadata.dryRunRequirement` for the dry-run report, and said in words. A dry run
 * knows no channel, so a policy without `approvers` names its legacy scope (a channel's own list is not consulted).
 */
export function dryRunWords(
  policy: AgentHookSettings['confirmation'],
  metadata: ToolCallMetadata,
  args: Record<string, unknown>,
) {
  const inForce = policyInForce(policy);
  const requirement = requirementOf(inForce, args);
  const tier = requirement.tier === null ? null : inForce.tiers[requirement.tier];
  metadata.dryRunRequirement = { ...requirement, when: tier?.when ?? null };
  const count = requirement.approvals === 1 ? '1 approval' : `${requirement.approvals} approvals`;
  const under = tier && requirement.tier !== null ? ` under tier ${requirement.tier + 1} (${tier.when})` : '';
  const self = policy.forbidSelfApproval ? ', not the requester' : '';
  return `would wait up to ${policy.timeoutS} s for ${count} by ${requirement.approvers.join(' or ')}${self}${under}`;
}
