import { argsReadBy, matchTier, type AgentHookSettings, type ToolCallMetadata } from '@warden/hooks';

/** What a new confirmation row records of the policy: who may approve, which tier applied, how many approvals. */
export interface RequestPolicy {
  approvers: string[];
  tier: number | null;
  approvalsRequired: number;
  decisiveFields: string[];
}

/**
 * Fixes the policy for one request from the agent's (or workflow node's) `confirmation` settings and the args.
 * Without `approvers`, the seed-compatible default: the channel's approver list when the channel has one (so that
 * list binds the inbox API too), else the legacy `approver_scope` (default `initiator`).
 */
export function requestPolicy(
  confirmation: AgentHookSettings['confirmation'],
  args: Record<string, unknown>,
  metadata: Pick<ToolCallMetadata, 'confirmationWhen'>,
  channelHasList: boolean,
): RequestPolicy {
  const base = confirmation.approvers ?? (channelHasList ? ['channel'] : [confirmation.approverScope]);
  const matched = matchTier(confirmation.tiers, args);
  const decisive = new Set([...argsReadBy(metadata.confirmationWhen), ...(confirmation.tiers ?? []).flatMap((t) => argsReadBy(t.when))]);
  return {
    approvers: matched?.tier.approvers ?? base,
    tier: matched?.index ?? null,
    approvalsRequired: matched?.tier.approvals ?? 1,
    decisiveFields: [...decisive].filter((f) => f in args),
  };
}
