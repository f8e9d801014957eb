/**
 * This process's appends not yet returned (or, inside a transaction, not yet committed), per owner: their NOTIFY
 * may arrive before their result does, and a follower told of such an event waits for the result instead of reading.
 */
export class AppendsInFlight {
  private readonly counts = new Map<string, number>();

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
}
