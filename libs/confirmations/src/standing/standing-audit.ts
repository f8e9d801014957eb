import type { AuditEventInput } from '@warden/common';
import type { StandingApproval } from './standing-approval.store.js';

/**
 * The chained events of a standing approval: `standing_approval.granted` (with its bound) and `standing_approval.used`
 * for each later call it lets through without asking, filed under the confirmation that granted it.
 */
export function standingEvent(
  change: 'granted' | 'used',
  s: StandingApproval,
  about: { actor: string | null; callId: string; argsDigest?: string },
): AuditEventInput {
  return {
    orgId: s.orgId,
    kind: 'confirmation',
    action: `standing_approval.${change}`,
    entityType: 'confirmation',
    entityId: s.confirmationId,
    actor: about.actor,
    occurredAt: new Date(),
    payload: {
      standing_approval_id: s.id,
      confirmation_id: s.confirmationId,
      run_id: s.runId,
      tool: s.tool,
      call_id: about.callId,
      ...(about.argsDigest ? { args_digest: about.argsDigest } : {}),
      when: s.condition,
      max_calls: s.maxCalls,
      uses: s.uses,
      expires_at: s.expiresAt.toISOString(),
      granted_by: s.grantedByName,
      granted_by_user_id: s.grantedByUserId,
    },
  };
}
