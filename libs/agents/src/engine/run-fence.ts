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

/**
 * A cancelled run's pending approvals expire with it (same transaction); the NOTIFY wakes their waiters on every
 * instance, and a decision arriving later finds the row expired (409).
 */
export async function expirePendingConfirmations(m: EntityManager, runId: string): Promise<void> {
  await m.query(
    `WITH expired AS (
       UPDATE confirmation_requests SET status = 'expired', responded_at = now(), responded_by_name = 'system',
              reason = 'the run was cancelled', updated_at = now()
        WHERE run_id = $1 AND status = 'pending' RETURNING id)
     SELECT pg_notify('${CONFIRMATION_NOTIFY_CHANNEL}', id::text) FROM expired`,
    [runId],
  );
}
