import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@warden/common';
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
      const [rows]: [Array<{ id: string }>, number] = await this.dataSource.query(
        `UPDATE workflow_runs SET locked_by = $1, lease_until = now() + make_interval(secs => $2)
         WHERE id IN (
           SELECT id FROM workflow_runs
           WHERE status IN ('running', 'waiting') AND (lease_until IS NULL OR lease_until < now()) AND NOT (id = ANY($3::uuid[]))
           ORDER BY lease_until NULLS FIRST LIMIT 50
           FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        [this.config.instanceId, this.config.runLeaseMs / 1000, this.runner.drivingIds()],
      );
      for (const { id } of rows) {
        this.logger.log({ workflowRunId: id }, 'resuming a workflow run whose lease expired');
        void this.runner.resume(id).catch((err: Error) => this.logger.error({ err, workflowRunId: id }, 'could not resume workflow run'));
      }
      return rows.map((r) => r.id);
    } catch (err) {
      this.logger.warn(`workflow recovery failed (the next tick retries): ${(err as Error).message}`);
      return [];
    } finally {
      this.ticking = false;
    }
  }
}
