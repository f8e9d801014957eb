import type { DataSource } from 'typeorm';
import type { LeasedTable } from './leases.js';

/** A lease this instance holds: the fencing epoch it claimed the row with, and what to do once it is lost. */
interface HeldLease {
  epoch: number;
  onLost: (detail: string) => void;
}

/**
 * Keeps the leases of every row this instance drives in one table alive with one statement per tick, however many
 * runs it drives (100 or 2 000 waiting runs cost the same). A lease that no longer renews at its epoch — the run
 * was claimed by another driver, or it ended elsewhere — is reported once to its holder, who stops without writing.
 */
export class LeaseKeeper {
  private readonly held = new Map<string, HeldLease>();
  private timer?: NodeJS.Timeout;
  private ticking = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly table: LeasedTable,
    private readonly leaseMs: number,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  /** Keeps `id`'s lease at `epoch` alive until `release(id)`; `onLost` is called once if it is lost meanwhile. */
  hold(id: string, epoch: number, onLost: (detail: string) => void): void {
    this.held.set(id, { epoch, onLost });
    this.timer ??= setInterval(() => void this.tick(), Math.max(500, this.leaseMs / 3)).unref();
  }

  release(id: string): void {
    this.held.delete(id);
    if (this.held.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Renews every held lease in one statement; reports the ones that did not renew. */
  async tick(): Promise<void> {
    if (this.ticking || this.held.size === 0) return;
    this.ticking = true;
    try {
      const ids = [...this.held.keys()];
      const epochs = [...this.held.values()].map((h) => h.epoch);
      const rows: Array<{ id: string; renewed: boolean; status: string | null; locked_by: string | null }> =
        await this.dataSource.query(
          `WITH held AS (SELECT * FROM unnest($1::uuid[], $2::int[]) AS h(id, epoch)),
              renewed AS (
                UPDATE ${this.table} t SET lease_until = now() + make_interval(secs => $3)
                  FROM held WHERE t.id = held.id AND t.lease_epoch = held.epoch
                   AND t.status IN ('running', 'waiting') AND t.locked_by IS NOT NULL
                RETURNING t.id)
         SELECT held.id, (renewed.id IS NOT NULL) AS renewed, t.status, t.locked_by
           FROM held LEFT JOIN renewed ON renewed.id = held.id LEFT JOIN ${this.table} t ON t.id = held.id`,
          [ids, epochs, this.leaseMs / 1000],
        );
      for (const row of rows) {
        if (row.renewed) continue;
        const lease = this.held.get(row.id);
        if (!lease) continue;
        this.held.delete(row.id);
        const active = row.status === 'running' || row.status === 'waiting';
        lease.onLost(
          active
            ? `taken over by ${row.locked_by ?? 'recovery'}`
            : `the run ended ${row.status ?? 'and was deleted'} elsewhere`,
        );
      }
    } catch (err) {
      // A failed renewal is retried next tick; a lease that lapses meanwhile is detected by the fenced writes.
      this.onError(err as Error);
    } finally {
      this.ticking = false;
    }
  }
}
