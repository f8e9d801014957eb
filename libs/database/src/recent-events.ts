import type { LoggedEvent } from './event-log.types.js';

/** How many events appended here are kept per owner, so local followers need no read. */
const RECENT_LIMIT = 256;
/** How many owners born here and not (yet) followed are remembered: a stream usually follows its run at once. */
const BORN_LIMIT = 1_000;

/**
 * The events this process appended, per owner it keeps: owners with followers, and owners created here (`born`)
 * whose log it holds complete from event 1 — a follower of those starts from memory without reading the table.
 */
export class RecentEvents {
  private readonly kept = new Map<string, LoggedEvent[]>();
  /** Owners whose whole log so far was appended by this process (insertion order: the oldest is forgotten first). */
  private readonly complete = new Set<string>();

  /** The owner's log starts here (its first event is in this process's memory from now on). */
  born(ownerId: string): void {
    this.complete.add(ownerId);
    if (this.complete.size <= BORN_LIMIT) return;
    const [oldest] = this.complete;
    this.complete.delete(oldest);
    if (!this.isFollowed(oldest)) this.kept.delete(oldest);
  }

  /** A NOTIFY of the owner's event `seq` (undefined: unnumbered): unless it is one of ours, memory misses it. */
  noticed(ownerId: string, seq: number | undefined): void {
    if (!this.complete.has(ownerId)) return;
    const kept = this.kept.get(ownerId);
    if (seq !== undefined && kept?.some((e) => e.seq === seq)) return;
    this.complete.delete(ownerId);
    if (!this.isFollowed(ownerId)) this.kept.delete(ownerId);
  }

  /** Notifications may have been missed (the LISTEN connection was down): no log is known complete. */
  noneComplete(): void {
    for (const ownerId of this.complete) if (!this.isFollowed(ownerId)) this.kept.delete(ownerId);
    this.complete.clear();
  }

  /**
   * Keeps the event when the owner is followed here or was born here (in `seq` order: appends may finish out of order).
   */
  remember(ownerId: string, event: LoggedEvent): void {
    if (!this.isFollowed(ownerId) && !this.complete.has(ownerId)) return;
    const kept = this.kept.get(ownerId) ?? [];
    let at = kept.length;
    while (at > 0 && kept[at - 1].seq > event.seq) at--;
    kept.splice(at, 0, event);
    if (kept.length > RECENT_LIMIT) kept.splice(0, kept.length - RECENT_LIMIT);
    this.kept.set(ownerId, kept);
  }

  /** The highest event number known complete from 1 for an owner born here, or null (a follower must read). */
  completeThrough(ownerId: string): number | null {
    const kept = this.kept.get(ownerId);
    if (!this.complete.has(ownerId) || kept?.[0].seq !== 1) return null;
    return kept[kept.length - 1].seq;
  }

  /**
   * The remembered events from `last + 1` through `told`, when memory holds all of them (else null: read the table).
   */
  between(ownerId: string, last: number, told: number): LoggedEvent[] | null {
    const kept = this.kept.get(ownerId) ?? [];
    const at = kept.findIndex((e) => e.seq === last + 1);
    if (at < 0) return null;
    const run = kept.slice(at);
    const covered = run.every((e, i) => e.seq === last + 1 + i) && run[run.length - 1].seq >= told;
    return covered ? run : null;
  }

  /** The owner's last follower left: nothing of it is needed any more. */
  forget(ownerId: string): void {
    this.kept.delete(ownerId);
    this.complete.delete(ownerId);
  }

  constructor(private readonly isFollowed: (ownerId: string) => boolean) {}
}
