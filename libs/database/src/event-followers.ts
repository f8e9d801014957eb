import type { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';

/**
 * One stream following an owner's log: the last event it delivered, the highest event number it was told of, and
 * whether it was told of events without their number (a transaction committed, a reconnect): then it reads the table.
 */
export interface Follower {
  last: number;
  told: number;
  mustRead: boolean;
  dirty: boolean;
  wake?: () => void;
}

/**
 * The streams following each owner's log in this process, and the safety net for a missed wake-up: while any log is
 * followed and `unheard()` says notifications may be missed (no LISTEN connection up), one query per `sweepMs` covers
 * them all and wakes those with events not yet seen. While the LISTEN connection is up nothing is missed (a reconnect
 * wakes every follower), so a followed log that does not move costs no statement.
 */
export class EventFollowers {
  private readonly followed = new Map<string, Set<Follower>>();
  private sweepTimer?: NodeJS.Timeout;
  private sweeping = false;
  /** Streams following a log right now. */
  count = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly ownersTable: string,
    private readonly logger: Logger,
    private readonly sweepMs: number,
    /** Called when the last follower of an owner leaves. */
    private readonly onUnfollowed: (ownerId: string) => void,
    /** Wakes the followers of an owner that is behind its log. */
    private readonly wake: (ownerId: string, seq: number) => void,
    /** True while another instance's events could go unnoticed (the timer's sweep runs only then). */
    private readonly unheard: () => boolean = () => true,
  ) {}

  has(ownerId: string): boolean {
    return this.followed.has(ownerId);
  }

  add(ownerId: string, follower: Follower): void {
    this.count++;
    const set = this.followed.get(ownerId) ?? new Set<Follower>();
    set.add(follower);
    this.followed.set(ownerId, set);
    this.sweepTimer ??= setInterval(() => {
      if (this.unheard()) void this.sweep();
    }, this.sweepMs).unref();
  }

  remove(ownerId: string, follower: Follower): void {
    this.count--;
    const set = this.followed.get(ownerId);
    set?.delete(follower);
    if (set?.size === 0) {
      this.followed.delete(ownerId);
      this.onUnfollowed(ownerId);
    }
    if (this.followed.size === 0) this.stopSweeping();
  }

  stopSweeping(): void {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /** One query for every followed log; wakes those with events not yet seen. */
  async sweep(): Promise<void> {
    if (this.sweeping || this.followed.size === 0) return;
    this.sweeping = true;
    try {
      const rows = await this.dataSource.query<Array<{ id: string; event_seq: number }>>(
        `SELECT id, event_seq FROM ${this.ownersTable} WHERE id = ANY($1::uuid[])`,
        [[...this.followed.keys()]],
      );
      for (const row of rows) {
        const behind = [...(this.followed.get(row.id) ?? [])].some((f) => f.last < row.event_seq);
        if (behind) this.wake(row.id, row.event_seq);
      }
    } catch (err) {
      this.logger.warn(`event log sweep failed (the next one retries): ${(err as Error).message}`);
    } finally {
      this.sweeping = false;
    }
  }
}
