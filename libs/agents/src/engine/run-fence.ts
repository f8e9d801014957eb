import { appendAuditEvents, type AuditEventInput } from '@warden/common';
import { RunInterruptedError } from '@warden/hooks';
import type { EntityManager } from 'typeorm';

/** The confirmation waiters' NOTIFY channel (@warden/confirmations), named here to avoid a dependency cycle. */
const CONFIRMATION_NOTIFY_CHANNEL = 'confirmation_decided';

/**
 * This driver no longer holds the run at the lease epoch it claimed: another instance took it over (this process
 * was paused past its lease), or the run ended elsewhere (cancelled). The driver stops without writing or deciding
 * anything; whoever holds the run now continues it from the database.
 */
export class LeaseLostError extends RunInterruptedError {
  constructor(runId: string, detail = 'another driver holds it now') {
    super(`run ${runId}: the lease was lost (${detail}); stopping here`);
    this.name = 'LeaseLostError';
  }
}

/**
 * SQL condition "the driver still holds run `$1` at the epoch in parameter `$n`". `FOR SHARE` locks the run row for
 * the statement, so no claim (which updates the row) can commit between this check and the guarded write.
 */
export function holdsRun(epochParam: number): string {
  return `EXISTS (SELECT 1 FROM agent_runs WHERE id = $1 AND lease_epoch = $${epochParam} AND status IN ('running', 'waiting') FOR SHARE)`;
}

/** What a cancel's expiry returns of each request: the fields of its `confirmation.expired` audit event. */
interface ExpiredRequest {
  id: string;
  org_id: string;
  run_id: string;
  call_id: string;
  agent_id: string | null;
  tool: string;
  args_digest: string | null;
  requested_by: string | null;
  approvals_given: number;
  approvals_required: number;
  tier: number | null;
}

const CANCELLED = 'the run was cancelled';

/**
 * A cancelled run's pending approvals expire with it (same transaction), each with its chained `confirmation.expired`
 * event (the payload of @warden/confirmations' confirmation-audit.ts, which this lib cannot import); the NOTIFY wakes
 * their waiters on every instance, and a decision arriving later finds the row expired (409).
 */
export async function expirePendingConfirmations(m: EntityManager, runId: string): Promise<void> {
  const expired = await m.query<ExpiredRequest[]>(
    `WITH expired AS (
       UPDATE confirmation_requests SET status = 'expired', responded_at = now(), responded_by_name = 'system',
              reason = '${CANCELLED}', updated_at = now()
        WHERE run_id = $1 AND status = 'pending'
        RETURNING id, org_id, run_id, call_id, agent_id, tool, args_digest, requested_by, approvals_given, approvals_required, tier)
     SELECT expired.*, pg_notify('${CONFIRMATION_NOTIFY_CHANNEL}', id::text) FROM expired`,
    [runId],
  );
  await appendAuditEvents(m, expired.map(expiredEvent));
}

function expiredEvent(r: ExpiredRequest): AuditEventInput {
  return {
    orgId: r.org_id,
    kind: 'confirmation',
    action: 'confirmation.expired',
    entityType: 'confirmation',
    entityId: r.id,
    actor: null,
    occurredAt: new Date(),
    payload: {
      confirmation_id: r.id,
      run_id: r.run_id,
      call_id: r.call_id,
      agent_id: r.agent_id,
      tool: r.tool,
      args_digest: r.args_digest,
      requested_by: r.requested_by,
      decision: 'expired',
      decided_by_user_id: null,
      decided_by_name: 'system',
      platform: null,
      external_id: null,
      reason: CANCELLED,
      approvals_given: r.approvals_given,
      approvals_required: r.approvals_required,
      tier: r.tier,
    },
  };
}
