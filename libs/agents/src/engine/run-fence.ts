import { RunInterruptedError } from '@warden/hooks';

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
  return `EXISTS (SELECT 1 FROM agent_runs WHERE id = $1 AND lease_epoch = $${epochParam}
                    AND status IN ('running', 'waiting') FOR SHARE)`;
}
