/** Owners whose last own event number is remembered (the oldest is forgotten first). */
const OWN_KEPT = 10_000;

/**
 * This process's appends not yet returned (or, inside a transaction, not yet committed), per owner: their NOTIFY
 * may arrive before their result does, and a follower told of such an event waits for the result instead of reading.
 * It also remembers the last event number each owner got from this process, so the NOTIFY echo of an own append is
 * told apart from another instance's (`isOwn`).
 */
export class AppendsInFlight {
  private readonly counts = new Map<string, number>();
  private readonly lastOwn = new Map<string, number>();

  start(ownerId: string): void {
    this.counts.set(ownerId, (this.counts.get(ownerId) ?? 0) + 1);
  }

  end(ownerId: string): void {
    const left = (this.counts.get(ownerId) ?? 1) - 1;
    if (left > 0) this.counts.set(ownerId, left);
    else this.counts.delete(ownerId);
  }

  has(ownerId: string): boolean {
    return this.counts.has(ownerId);
  }

  /** An own append of `ownerId` returned (or committed) with events up to `seq`. */
  returned(ownerId: string, seq: number): void {
    this.lastOwn.delete(ownerId);
    this.lastOwn.set(ownerId, seq);
    if (this.lastOwn.size > OWN_KEPT) {
      const oldest = this.lastOwn.keys().next();
      if (!oldest.done) this.lastOwn.delete(oldest.value);
    }
  }

  /** Whether a notification of `ownerId`'s event `seq` may be of this process's own append. */
  isOwn(ownerId: string, seq: number | undefined): boolean {
    return this.counts.has(ownerId) || (seq !== undefined && seq <= (this.lastOwn.get(ownerId) ?? 0));
  }
}
