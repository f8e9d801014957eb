import { Injectable, Logger, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig, DueSweeps, Metrics } from '@warden/common';
import { claimExpiredLeases, nextClaimDueInMs } from '@warden/database';
import { DataSource } from 'typeorm';
import { WorkflowRunEvents } from './workflow-run-events.js';
import { WorkflowRunner } from './workflow-runner.js';

const CLAIM_BATCH = 50;

/**
 * Continues workflow runs nobody drives any more (their instance died or shut down): every instance claims runs
 * whose lease lapsed, taking the lease in the same statement (`FOR UPDATE SKIP LOCKED`), and resumes them. The agent
 * runs of their nodes are recovered by the agents' own run recovery. It sweeps only when something may be due
 * (DueSweeps, at most once per RUN_RECOVERY_MS): at startup, at the earliest lease expiry the last sweep found, and one
 * lease period after any workflow run's event here or elsewhere. With no active workflow run, it sends nothing.
 */
@Injectable()
export class WorkflowRecovery implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WorkflowRecovery.name);
  private readonly sweeps: DueSweeps;
  private ticking = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly runner: WorkflowRunner,
    private readonly config: AppConfig,
    events: WorkflowRunEvents,
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.sweeps = new DueSweeps({
      sweep: () => this.sweep(),
      minGapMs: config.runRecoveryMs,
      onError: (err) => this.logger.warn(`workflow recovery failed (retried shortly): ${err.message}`),
    });
    events.onActivity(() => this.sweeps.dueIn(config.runLeaseMs));
  }

  onApplicationBootstrap(): void {
    this.sweeps.dueIn(0);
  }

  onModuleDestroy(): void {
    this.sweeps.stop();
  }

  async tick(): Promise<string[]> {
    if (this.ticking || this.runner.isStopping) return [];
    this.ticking = true;
    try {
      const claimed = await claimExpiredLeases(this.dataSource, {
        table: 'workflow_runs',
        instanceId: this.config.instanceId,
        leaseMs: this.config.runLeaseMs,
        exclude: this.runner.drivingIds(),
        limit: CLAIM_BATCH,
      });
      if (claimed.length) this.metrics?.leaseTakeovers.labels('workflow').inc(claimed.length);
      for (const id of claimed) {
        this.logger.log({ workflowRunId: id }, 'resuming a workflow run whose lease expired');
        void this.runner
          .resume(id)
          .catch((err: unknown) => this.logger.error({ err, workflowRunId: id }, 'could not resume workflow run'));
      }
      return claimed;
    } catch (err) {
      this.logger.warn(`workflow recovery failed (the next sweep retries): ${(err as Error).message}`);
      return [];
    } finally {
      this.ticking = false;
    }
  }

  /** One sweep: claims what is due, then returns how long until the next run may be (null: none may). */
  private async sweep(): Promise<number | null> {
    if (this.runner.isStopping) return null;
    if ((await this.tick()).length >= CLAIM_BATCH) return 0;
    return nextClaimDueInMs(this.dataSource, { table: 'workflow_runs' });
  }
}
