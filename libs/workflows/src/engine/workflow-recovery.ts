import { Injectable, Logger, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig, Metrics } from '@warden/common';
import { claimExpiredLeases } from '@warden/database';
import { DataSource } from 'typeorm';
import { WorkflowRunner } from './workflow-runner.js';

/**
 * Continues workflow runs nobody drives any more (their instance died or shut down): once per RUN_RECOVERY_MS every
 * instance claims runs whose lease lapsed, taking the lease in the same statement (`FOR UPDATE SKIP LOCKED`), and
 * resumes them. The agent runs of their nodes are recovered by the agents' own run recovery.
 */
@Injectable()
export class WorkflowRecovery implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WorkflowRecovery.name);
  private timer?: NodeJS.Timeout;
  private ticking = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly runner: WorkflowRunner,
    private readonly config: AppConfig,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.config.runRecoveryMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
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
        limit: 50,
      });
      if (claimed.length) this.metrics?.leaseTakeovers.labels('workflow').inc(claimed.length);
      for (const id of claimed) {
        this.logger.log({ workflowRunId: id }, 'resuming a workflow run whose lease expired');
        void this.runner.resume(id).catch((err: unknown) => this.logger.error({ err, workflowRunId: id }, 'could not resume workflow run'));
      }
      return claimed;
    } catch (err) {
      this.logger.warn(`workflow recovery failed (the next tick retries): ${(err as Error).message}`);
      return [];
    } finally {
      this.ticking = false;
    }
  }
}
