import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';

import { BoundedMap, OnBus } from '@warden/common';
import { RUN_PARKED, type RunParkedEvent } from './live-run.js';
import { ParkedDeadlines } from './parked-deadlines.js';
import { RunExecutor } from './run-executor.js';
import { RunRecovery } from './run-recovery.js';
import { RunStore } from './run-store.js';
import {
  CONFIRMATION_NOTIFIED,
  CONFIRMATION_SETTLED,
  PARKED_RUNS_CLAIMED,
  type ParkedClaim,
  type ParkedRunsClaimed,
} from './settle-port.js';

/** How many settlements are remembered, so that hearing one again (event + NOTIFY) costs no second claim. */
const HEARD_KEPT = 1024;

/**
 * Continues parked runs (RunStore.park) when an approval they wait for is decided: the instance that takes the
 * decision claims the run in the decision's own statement (settle-port.ts) or, missed there, at once on its
 * in-process event; every other instance on its NOTIFY (one claim statement for
 * the ids of a tick; the first claim wins). A park sees a decision in flight (RunLeases.parkWrite), so a decided
 * run is either still held or parked for these claims; when a claim fails, recovery takes it (RunRecovery). The
 * instance that parked a run also claims it when an approval's deadline passes (ParkedDeadlines: one timer), so the
 * gate expires the request on time.
 */
@Injectable()
export class ParkedRunResumer implements OnModuleDestroy {
  private readonly logger = new Logger(ParkedRunResumer.name);
  private readonly queue = new Set<string>();
  private scheduled = false;
  private readonly heard = new BoundedMap<string, true>(HEARD_KEPT);
  private readonly deadlines = new ParkedDeadlines((ids) => {
    for (const id of ids) this.schedule(id);
  });

  constructor(
    private readonly store: RunStore,
    private readonly executor: RunExecutor,
    private readonly recovery: RunRecovery,
  ) {}

  /**
   * This instance's settlement claimed the runs parked on it in its own statement (settle-port.ts): they are driven
   * on at once, and the settlement's event and NOTIFY claim nothing more. None claimed (no run parked on it yet, or
   * it waits in a process): the event claims as before.
   */
  @OnBus(PARKED_RUNS_CLAIMED)
  onClaimedBySettlement({ confirmationId, claims }: ParkedRunsClaimed): void {
    if (claims.length === 0) return;
    this.deadlines.forget(confirmationId);
    this.heard.set(confirmationId, true);
    for (const claim of claims) this.resume(claim);
  }

  @OnBus(CONFIRMATION_SETTLED)
  onSettled(row: { id: string; status: string }): void {
    if (row.status === 'pending') return;
    this.deadlines.forget(row.id);
    if (this.firstNews(row.id)) this.schedule(row.id);
  }

  @OnBus(CONFIRMATION_NOTIFIED)
  onNotified(id: string): void {
    this.deadlines.forget(id);
    if (this.firstNews(id)) this.schedule(id);
  }

  @OnBus(RUN_PARKED)
  onParked(event: RunParkedEvent): void {
    for (const a of event.approvals) if (a.expiresAt) this.deadlines.watch(a.confirmationId, a.expiresAt);
  }

  onModuleDestroy(): void {
    this.deadlines.stop();
  }

  /**
   * A settlement is heard twice here when it is this instance's (its event, and its NOTIFY, in either order): only
   * the first is claimed for. A request settles once, so an id never needs a second claim.
   */
  private firstNews(id: string): boolean {
    if (this.heard.has(id)) return false;
    this.heard.set(id, true);
    return true;
  }

  private schedule(id: string): void {
    if (this.executor.isStopping) return;
    this.queue.add(id);
    if (this.scheduled) return;
    this.scheduled = true;
    // Settlements of the same turn share one claim statement, sent before the decision's own audit write.
    queueMicrotask(() => void this.flush());
  }

  private resume(claim: ParkedClaim): void {
    void this.executor
      .resumeClaimed(claim)
      .catch((err: unknown) => this.logger.error({ err, runId: claim.id }, 'could not resume a parked run'));
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const ids = [...this.queue];
    this.queue.clear();
    try {
      for (const claim of await this.store.leases.claimParked(ids)) this.resume(claim);
    } catch (err) {
      // Recovery claims a parked run whose approval is decided: nothing is lost, only later.
      this.logger.warn(`claiming parked runs failed (recovery will): ${(err as Error).message}`);
      this.recovery.afterFailedClaim();
    }
  }
}
