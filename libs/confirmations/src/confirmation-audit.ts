import type { AuditEventInput } from '@warden/common';
import type { ConfirmationRequest } from './confirmation.types.js';

/** The chained event of a request: its envelope and the fields that say which call it is about, plus `payload`. */
export function requestEvent(
  row: ConfirmationRequest,
  action: string,
  actor: string | null,
  payload: Record<string, unknown>,
): AuditEventInput {
  return {
    orgId: row.orgId,
    kind: 'confirmation',
    action,
    entityType: 'confirmation',
    entityId: row.id,
    actor,
    occurredAt: new Date(),
    payload: {
      confirmation_id: row.id,
      run_id: row.runId,
      call_id: row.callId,
      agent_id: row.agentId,
      tool: row.tool,
      args_digest: row.argsDigest,
      ...payload,
    },
  };
}

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
  return requestEvent(row, `confirmation.${action}`, by.userId, {
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
    // Approved with changes (or answered): the readable args as proposed and as approved, kept in the chain because
    // the row's copy can be edited afterwards.
    ...(action === 'approved' && row.originalArgs
      ? { edit: { before: row.originalArgs, after: row.args, by: row.editedByName ?? by.name } }
      : {}),
  });
}

/** A pending request handed to another approver: who did it, from which approvers, to whom (reassignment-policy.ts). */
export function reassignedEvent(
  row: ConfirmationRequest,
  move: { byUserId: string; byName: string; from: string[]; toSub: string; toUserId: string; reason: string | null },
): AuditEventInput {
  return requestEvent(row, 'confirmation.reassigned', move.byUserId, {
    by_name: move.byName,
    from: move.from,
    to: move.toSub,
    to_user_id: move.toUserId,
    to_approvers: row.approvers,
    reason: move.reason,
    approvals_given: row.approvalsGiven,
    approvals_required: row.approvalsRequired,
    tier: row.tier,
  });
}
