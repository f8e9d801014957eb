import { Injectable, type OnModuleInit } from '@nestjs/common';

import { Metrics, OnBus } from '@warden/common';
import { DataSource } from 'typeorm';
import { RUN_FINISHED } from '../engine/run-executor.js';
import { RunEventsService } from './run-events.service.js';

/** Run series of GET /metrics: finished runs by status and surface, active runs, event streams being followed. */
@Injectable()
export class RunMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly dataSource: DataSource,
    private readonly events: RunEventsService,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge(
      'warden_runs_active',
      'Runs not finished yet, by status (running, waiting), all instances',
      async () => {
        const rows: Array<{ status: string; n: number }> = await this.dataSource.query(
          `SELECT status, count(*)::int AS n FROM agent_runs WHERE status IN ('running', 'waiting') GROUP BY status`,
        );
        return ['running', 'waiting'].map((status) => ({
          labels: { status },
          value: rows.find((r) => r.status === status)?.n ?? 0,
        }));
      },
      ['status'],
    );
    this.metrics.gauge('warden_event_log_followers', 'Run event streams this instance is following', () =>
      Promise.resolve(this.events.followers),
    );
  }

  @OnBus(RUN_FINISHED)
  onFinished(e: { status: string; surface?: string }): void {
    this.metrics.runsFinished.labels(e.status, e.surface ?? 'unknown').inc();
  }
}
