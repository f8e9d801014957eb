import { decidedOrOverdueAmong, dueAmong } from '@warden/confirmations/run-port';
import { Injectable, Logger, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';

import { AppConfig, DueSweeps, Metrics, OnBus } from '@warden/common';
import { claimExpiredLeases, nextClaimDueInMs } from '@warden/database';
import { DataSource } from 'typeorm';
import { RunEventsService } from '../runs/run-events.service.js';
import { RUN_LEFT } from './live-run.js';
import { CONFIRMATION_NOTIFIED } from './settle-port.js';
import { RunExecutor } from './run-executor.js';

/** Runs claimed per sweep; when there were more, the next sweep follows (one gap later). */
const CLAIM_BATCH = 100;
/**
 * A run that is not parked, or one whose approval was decided (a decision whose claim missed it: the resumer runs
 * on the instance that took the decision) or whose deadline passed (the gate then expires it).
 */
const PARKED_RUN_CLAIMABLE = `(parked_on IS NULL OR EXISTS (${decidedOrOverdueAmong('agent_runs.parked_on')}))`;
/** When a parked run becomes claimable: at once once an approval it waits for is decided, else at its deadline. */
const PARKED_RUN_DUE = `SELECT min(d.due) FROM agent_runs r CROSS JOIN LATERAL (${dueAmong('r.parked_on')}) d
  WHERE r.status IN ('running', 'waiting') AND r.parked_on IS NOT NULL`;

/**
 * Continues runs nobody drives any more. Every instance sweeps: it claims active runs whose lease expired (their
 * instance died, or stopped and released them) and resumes them from their checkpoint. The claim takes the lease in
 * the same statement, with `FOR UPDATE SKIP LOCKED`, so two instances never claim the same run; runs this process
 * already drives are never claimed (their lease may lag while the event loop is busy), and a run is leased from the
 * moment it is created, so a starting run is never taken. A parked run (RunStore.park) is claimed here only once an
 * approval it waits for is decided or past its deadline.
 *
 * It sweeps only when something may be due (DueSweeps), at most once per `RUN_RECOVERY_MS`: at startup; then at the
 * earliest lease expiry or parked deadline the last sweep found; one lease period after another instance's run event
 * (a run started there since) or after a drive here stopped without ending its run (a database error); and one gap
 * after a claim of decided parked runs failed here (ParkedRunResumer); one lease period after another instance's
 * decision (its claimer may die). A decision taken here arms nothing.
 * With no active run anywhere, no timer runs and no statement is sent.
 */
@Injectable()
export class RunRecovery implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RunRecovery.name);
  private readonly sweeps: DueSweeps;
  private ticking = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly executor: RunExecutor,
    private readonly config: AppConfig,
    events: RunEventsService,
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.sweeps = new DueSweeps({
      sweep: () => this.sweep(),
      minGapMs: config.runRecoveryMs,
      onError: (err) => this.logger.warn(`run recovery failed (retried shortly): ${err.message}`),
    });
    // Another instance's run event: that run is active and leased; should its holder die, it is due once that lease
    // expires. This process's own events need no sweep while it lives (it drives those runs), only a drive it leaves.
    events.onActivity((_, own) => {
      if (!own) this.sweeps.dueIn(config.runLeaseMs);
    });
  }

  onApplicationBootstrap(): void {
    this.sweeps.dueIn(0);
  }

  onModuleDestroy(): void {
    this.sweeps.stop();
  }

  /** A drive here stopped and left its run active: it is due once its lease expires. */
  @OnBus(RUN_LEFT)
  onLeft(): void {
    this.sweeps.dueIn(this.config.runLeaseMs);
  }

  /**
   * Another instance's settlement: it claimed the run parked on it (in the decision's own statement); should it die
   * before driving that run on, the run is due once the lease expires. (A settlement here arms nothing.)
   */
  @OnBus(CONFIRMATION_NOTIFIED)
  onOtherDecision(): void {
    this.sweeps.dueIn(this.config.runLeaseMs);
  }

  /**
   * A claim of parked runs whose approval was decided failed here (a database error): they are due one gap later.
   * A decision needs no sweep otherwise: a park sees a decision in flight (it locks the requests it parks on), so a
   * decision either keeps its run held or finds it parked, where the claims on its event and NOTIFY take it.
   */
  afterFailedClaim(): void {
    this.sweeps.dueIn(this.config.runRecoveryMs);
  }

  /** When the next sweep is armed for (epoch ms; Infinity: none). */
  get nextSweepAt(): number {
    return this.sweeps.nextSweepAt;
  }

  /** Claims and resumes the runs whose lease expired; returns their ids. */
  async tick(): Promise<string[]> {
    if (this.ticking || this.executor.isStopping) return [];
    this.ticking = true;
    try {
      const claimed = await this.claim();
      for (const id of claimed) {
        this.logger.log({ runId: id }, 'resuming a run whose lease expired');
        void this.executor
          .resume(id)
          .catch((err: unknown) => this.logger.error({ err, runId: id }, 'could not resume run'));
      }
      return claimed;
    } catch (err) {
      this.logger.warn(`run recovery failed (the next sweep retries): ${(err as Error).message}`);
      return [];
    } finally {
      this.ticking = false;
    }
  }

  /** One sweep: claims what is due, then returns how long until the next run may be (null: none may). */
  private async sweep(): Promise<number | null> {
    if (this.executor.isStopping) return null;
    if ((await this.tick()).length >= CLAIM_BATCH) return 0;
    // Runs this process drives count too: one it stops driving without ending (a database error) is due then.
    return nextClaimDueInMs(this.dataSource, {
      table: 'agent_runs',
      active: 'parked_on IS NULL',
      alsoDue: PARKED_RUN_DUE,
    });
  }

  private async claim(): Promise<string[]> {
    const claimed = await claimExpiredLeases(this.dataSource, {
      table: 'agent_runs',
      instanceId: this.config.instanceId,
      leaseMs: this.config.runLeaseMs,
      exclude: this.executor.drivingIds(),
      limit: CLAIM_BATCH,
      // A parked run is nobody's to drive until one of its approvals is decided or past its deadline.
      claimable: PARKED_RUN_CLAIMABLE,
      set: 'parked_on = NULL',
    });
    if (claimed.length) this.metrics?.leaseTakeovers.labels('run').inc(claimed.length);
    return claimed;
  }
}
