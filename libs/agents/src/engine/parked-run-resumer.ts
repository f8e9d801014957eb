import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { RunExecutor } from './run-executor.js';
import { RunStore } from './run-store.js';

/**
 * The bus events of @warden/confirmations this listens to, named here to avoid a dependency cycle: a request left
 * `pending` in this process (payload: the row), and a NOTIFY of the confirmation channel (payload: its id).
 */
const CONFIRMATION_SETTLED = 'confirmation.settled';
const CONFIRMATION_NOTIFIED = 'confirmation.notified';
/** How many settlements of this process are remembered, so their NOTIFY echo costs no claim. */
const RECENT_LOCAL = 1024;

/**
 * Continues parked runs (RunStore.park) when an approval they wait for is decided: the instance that takes the
 * decision claims the run at once (in-process event), every other instance on its NOTIFY (one claim statement for
 * the ids of a tick; the first claim wins). A run whose claim was missed is claimed by recovery (RunRecovery).
 */
@Injectable()
export class ParkedRunResumer {
  private readonly logger = new Logger(ParkedRunResumer.name);
  private readonly queue = new Set<string>();
  private scheduled = false;
  private readonly local = new Set<string>();

  constructor(
    private readonly store: RunStore,
    private readonly executor: RunExecutor,
  ) {}

  @OnEvent(CONFIRMATION_SETTLED)
  onSettled(row: { id: string; status: string }): void {
    if (row.status === 'pending') return;
    this.remember(row.id);
    this.schedule(row.id);
  }

  @OnEvent(CONFIRMATION_NOTIFIED)
  onNotified(id: string): void {
    // The echo of a settlement of this process: already handled.
    if (this.local.delete(id)) return;
    this.schedule(id);
  }

  private remember(id: string): void {
    this.local.add(id);
    // A Set keeps insertion order: the oldest is forgotten first.
    if (this.local.size <= RECENT_LOCAL) return;
    const [oldest] = this.local;
    this.local.delete(oldest);
  }

  private schedule(id: string): void {
    if (this.executor.isStopping) return;
    this.queue.add(id);
    if (this.scheduled) return;
    this.scheduled = true;
    // Settlements of the same tick share one claim statement.
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const ids = [...this.queue];
    this.queue.clear();
    try {
      for (const claim of await this.store.leases.claimParked(ids)) {
        void this.executor
          .resumeClaimed(claim)
          .catch((err: unknown) => this.logger.error({ err, runId: claim.id }, 'could not resume a parked run'));
      }
    } catch (err) {
      // Recovery claims a parked run whose approval is decided: nothing is lost, only later.
      this.logger.warn(`claiming parked runs failed (recovery will): ${(err as Error).message}`);
    }
  }
}
