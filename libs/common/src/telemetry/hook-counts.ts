import { Counter, type Histogram, type Registry } from 'prom-client';

/** Counts of one hook (name + point): resolved once per hook name, so recording an outcome is two property reads. */
export interface HookStats {
  /** `seconds` undefined: the hook was not timed on this call (sampled timing): its outcome counts, nothing else. */
  record(outcome: string, seconds: number | undefined): void;
}

/**
 * One hook's outcomes and durations as plain numbers, handed to Prometheus at scrape time: prom-client's labelled
 * inc and observe hash their labels on every call (about 1 µs together, more than a hook), recording here costs a
 * map update and a bucket search.
 */
export class HookCounts implements HookStats {
  readonly outcomes = new Map<string, number>();
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  readonly buckets: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly hook: string,
    readonly point: string,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = new Array<number>(bounds.length + 1).fill(0);
  }

  record(outcome: string, seconds: number | undefined): void {
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    if (seconds === undefined) return;
    const bounds = this.bounds;
    let b = 0;
    while (b < bounds.length && seconds > bounds[b]) b++;
    this.buckets[b]++;
    this.sum += seconds;
    this.count++;
  }
}

/** warden_hook_outcomes_total, summed from every hook's counts at scrape time (its `collect`). */
export function hookOutcomeCounter(
  registry: Registry,
  all: () => Iterable<HookCounts>,
): Counter<'hook' | 'point' | 'outcome'> {
  return new Counter({
    name: 'warden_hook_outcomes_total',
    help: 'Hook outcomes (allow, block, rewrite, error, ...) by hook and point',
    labelNames: ['hook', 'point', 'outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const c of all())
        for (const [outcome, n] of c.outcomes) this.inc({ hook: c.hook, point: c.point, outcome }, n);
    },
  });
}

/**
 * The duration histogram as Prometheus reads it (a prom-client metric object: name, type, `get`), built from every
 * hook's counts at scrape time; prom-client's own Histogram takes one observation at a time.
 */
export function hookDurationHistogram(
  name: string,
  help: string,
  bounds: readonly number[],
  all: () => Iterable<HookCounts>,
): Histogram<'hook' | 'point'> {
  const get = () => {
    const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
    for (const c of all()) {
      if (c.count === 0) continue;
      const labels = { hook: c.hook, point: c.point };
      let cumulative = 0;
      for (let b = 0; b <= bounds.length; b++) {
        cumulative += c.buckets[b];
        const le = b < bounds.length ? bounds[b] : '+Inf';
        values.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative });
      }
      values.push({ metricName: `${name}_sum`, labels, value: c.sum });
      values.push({ metricName: `${name}_count`, labels, value: c.count });
    }
    return Promise.resolve({ name, help, type: 'histogram', values, aggregator: 'sum' });
  };
  const reset = () => {
    for (const c of all()) {
      c.buckets.fill(0);
      c.sum = 0;
      c.count = 0;
    }
  };
  // A structural stand-in: the registry reads name, help, type and get(), and calls reset().
  return { name, help, type: 'histogram', aggregator: 'sum', get, reset } as unknown as Histogram<'hook' | 'point'>;
}
