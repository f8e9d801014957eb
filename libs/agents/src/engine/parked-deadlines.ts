// setTimeout overflows above 2^31-1 ms (~24.8 days): a later deadline is re-armed when the timer fires.
const MAX_TIMER_MS = 2_147_483_647;
/** Fired this long after a deadline, so that the database's clock has passed it too. */
const MARGIN_MS = 50;

/**
 * The deadlines of the approvals that runs parked by this process wait for, with one timer for all of them (at the
 * earliest): when one passes, `due` gets its confirmation ids (their runs are claimed, and the gate expires them).
 * Memory only: if this process dies, recovery claims the runs of overdue approvals.
 */
export class ParkedDeadlines {
  private readonly deadlines = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;

  constructor(private readonly due: (confirmationIds: string[]) => void) {}

  watch(confirmationId: string, expiresAt: string): void {
    this.deadlines.set(confirmationId, Date.parse(expiresAt));
    this.arm();
  }

  /** The approval was decided (or its run claimed for it): its deadline no longer matters here. */
  forget(confirmationId: string): void {
    this.deadlines.delete(confirmationId);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timerAt = Infinity;
    this.deadlines.clear();
  }

  get size(): number {
    return this.deadlines.size;
  }

  private arm(): void {
    let next = Infinity;
    for (const at of this.deadlines.values()) next = Math.min(next, at);
    if (next >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = next;
    this.timer = setTimeout(() => this.fire(), Math.min(MAX_TIMER_MS, Math.max(0, next - Date.now()) + MARGIN_MS));
    this.timer.unref();
  }

  private fire(): void {
    this.timerAt = Infinity;
    const now = Date.now();
    const due = [...this.deadlines].filter(([, at]) => at <= now).map(([id]) => id);
    for (const id of due) this.deadlines.delete(id);
    if (due.length > 0) this.due(due);
    if (this.deadlines.size > 0) this.arm();
  }
}
