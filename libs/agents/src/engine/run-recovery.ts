import { Injectable, Logger, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig, Metrics } from '@warden/common';
import { claimExpiredLeases } from '@warden/database';
import { DataSource } from 'typeorm';
import { RunExecutor } from './run-executor.js';

/** Runs claimed per tick; the rest wait for the next tick (one second later by default). */
const CLAIM_BATCH = 100;
/**
 * A run that is not parked, or one whose approval was decided (a decision whose claim missed it: the resumer runs
 * on the instance that took the decision) or whose deadline passed (the gate then expires it).
 */
const PARKED_RUN_CLAIMABLE = `(parked_on IS NULL OR EXISTS (SELECT 1 FROM confirmation_requests c
  WHERE c.id = ANY(agent_runs.parked_on) AND (c.status <> 'pending' OR c.expires_at <= now())))`;

/**
 * Continues runs nobody drives any more. Every instance runs this loop: once per `RUN_RECOVERY_MS` it claims active
 * runs whose lease expired (their instance died, or stopped and released them) and resumes them from their
 * checkpoint. The claim takes the lease in the same statement, with `FOR UPDATE SKIP LOCKED`, so two instances never
 * claim the same run; runs this process already drives are never claimed (their lease may lag while the event loop
 * is busy), and a run is leased from the moment it is created, so a starting run is never taken. A parked run
 * (RunStore.park) is claimed here only once an approval it waits for is decided or past its deadline.
 */
@Injectable()
export class RunRecovery implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RunRecovery.name);
  private timer?: NodeJS.Timeout;
  private ticking = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly executor: RunExecutor,
    private readonly config: AppConfig,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.config.runRecoveryMs);
    this.timer.unref();
    void this.tick();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Claims and resumes the runs whose lease expired; returns their ids. */
  async tick(): Promise<string[]> {
    if (this.ticking || this.executor.isStopping) return [];
    this.ticking = true;
    try {
      const claimed = await this.claim();
      for (const id of claimed) {
        this.logger.log({ runId: id }, 'resuming a run whose lease expired');
        void this.executor.resume(id).catch((err: unknown) => this.logger.error({ err, runId: id }, 'could not resume run'));
      }
      return claimed;
    } catch (err) {
      this.logger.warn(`run recovery failed (the next tick retries): ${(err as Error).message}`);
      return [];
    } finally {
      this.ticking = false;
    }
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
