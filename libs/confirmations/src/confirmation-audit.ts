import type { AuditEventInput } from '@warden/common';
import type { ConfirmationRequest } from './confirmation.types.js';

/** The audit event of a decision on an approval request: one person's vote, or the request's final state. */
export function confirmationEvent(
  row: ConfirmationRequest,
  action: 'vote' | 'approved' | 'rejected' | 'expired',
  by: {
    userId: string | null;
    name: string | null;
    platform?: string | null;
    externalId?: string | null;
    decision?: string;
    reason?: string | null;
  },
): AuditEventInput {
  return {
    orgId: row.orgId,
    kind: 'confirmation',
    action: `confirmation.${action}`,
    entityType: 'confirmation',
    entityId: row.id,
    actor: by.userId,
    occurredAt: new Date(),
    payload: {
      confirmation_id: row.id,
      run_id: row.runId,
      call_id: row.callId,
      agent_id: row.agentId,
      tool: row.tool,
      args_digest: row.argsDigest,
      requested_by: row.requestedBy,
      decision: by.decision ?? action,
      decided_by_user_id: by.userId,
      decided_by_name: by.name,
      platform: by.platform ?? null,
      external_id: by.externalId ?? null,
      reason: by.reason ?? null,
      approvals_given: row.approvalsGiven,
      approvals_required: row.approvalsRequired,
      tier: row.tier,
    },
  };
}
