import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { HookCounts, hookDurationHistogram, hookOutcomeCounter, type HookStats } from './hook-counts.js';

export type { HookStats } from './hook-counts.js';

const FAST_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5];
const HUMAN_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 900, 3600, 86400];
const HOOK_BUCKETS = [...FAST_BUCKETS, 30, 300, 3600];

/**
 * The Prometheus series Warden exposes at GET /metrics (prom-client, one registry per app so that several apps in
 * one process never share counters). Gauges whose value lives elsewhere (pending approvals in the database, the
 * audit writer's queue) are registered by their owners with `gauge()` and read at scrape time.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  /** Every hook's counts (statsFor), read at scrape time by the two hook series. */
  private readonly hookStats = new Map<string, HookCounts>();

  readonly hookDuration = hookDurationHistogram(
    'warden_hook_duration_seconds',
    'Time one hook took, by hook and point',
    HOOK_BUCKETS,
    () => this.hookStats.values(),
  );
  readonly hookOutcomes = hookOutcomeCounter(this.registry, () => this.hookStats.values());
  readonly approvalDecision = new Histogram({
    name: 'warden_approval_decision_seconds',
    help: 'From the approval request to its decision, by channel type and status',
    labelNames: ['channel', 'status'] as const,
    buckets: HUMAN_BUCKETS,
    registers: [this.registry],
  });
  readonly approvalWake = new Histogram({
    name: 'warden_approval_wake_seconds',
    help: 'From a decision being stored to the waiting run waking up',
    buckets: FAST_BUCKETS,
    registers: [this.registry],
  });
  readonly runsFinished = new Counter({
    name: 'warden_runs_finished_total',
    help: 'Runs that reached a final status, by status and surface',
    labelNames: ['status', 'surface'] as const,
    registers: [this.registry],
  });
  readonly toolCalls = new Counter({
    name: 'warden_tool_calls_total',
    help: 'Tool calls by tool and outcome (done, failed, blocked, simulated)',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly auditFlush = new Histogram({
    name: 'warden_audit_flush_seconds',
    help: 'Time one batched audit insert took',
    buckets: FAST_BUCKETS,
    registers: [this.registry],
  });
  readonly leaseTakeovers = new Counter({
    name: 'warden_lease_takeovers_total',
    help: 'Runs taken over from an instance whose lease expired, by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly httpRequests = new Histogram({
    name: 'warden_http_request_duration_seconds',
    help: 'HTTP requests by method, route and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: FAST_BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    this.registry.registerMetric(this.hookDuration);
    collectDefaultMetrics({ register: this.registry, prefix: 'warden_' });
  }

  /** A gauge whose value is read at scrape time (e.g. a count in the database). Errors leave the gauge unset. */
  gauge(
    name: string,
    help: string,
    read: () => Promise<number | Array<{ labels: Record<string, string>; value: number }>>,
    labelNames: string[] = [],
  ): void {
    if (this.registry.getSingleMetric(name)) return;
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        const value = await read().catch(() => undefined);
        if (typeof value === 'number') this.set(value);
        else for (const v of value ?? []) this.set(v.labels, v.value);
      },
    });
  }

  /** The recorder of one hook's outcomes. */
  statsFor(hook: string, point: string): HookStats {
    const key = `${point}\u0000${hook}`;
    let stats = this.hookStats.get(key);
    if (!stats) this.hookStats.set(key, (stats = new HookCounts(hook, point, HOOK_BUCKETS)));
    return stats;
  }
}
