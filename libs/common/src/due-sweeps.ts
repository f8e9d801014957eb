// setTimeout overflows above 2^31-1 ms (~24.8 days): a later due time is re-armed when the timer fires.
const MAX_TIMER_MS = 2_147_483_647;
/** Fired this long after a due time, so that the database's clock has passed it too. */
const MARGIN_MS = 50;

export interface DueSweepsOptions {
  /** One sweep; resolves with how long until the next thing it knows of is due (ms), or null when nothing is. */
  sweep: () => Promise<number | null>;
  /** Sweeps start at least this far apart: a due time that keeps being due (a locked row) costs one sweep per gap. */
  minGapMs: number;
  /** A sweep that threw: the next one is tried after the gap. */
  onError?: (err: Error) => void;
}

/**
 * Runs a sweep only when something may be due, instead of on an interval: one timer, armed at the earliest due time
 * anyone told it of (`dueIn`) or that the last sweep found. With nothing known to be due there is no timer at all, so
 * an idle instance sends no statement. Whoever may have made something due (a new lease, a decision, a notification
 * from another instance) says so with `dueIn`; a request that arrives during a sweep gets a sweep after it.
 */
export class DueSweeps {
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  private sweeping = false;
  /** Asked for while a sweep ran (it may have read the state before the change): armed once it ends. */
  private askedAt = Infinity;
  private lastSweepAt = -Infinity;
  private stopped = false;

  constructor(private readonly opts: DueSweepsOptions) {}

  /** Something may be due in `ms` (0: now). The earliest request wins; later ones cost nothing. */
  dueIn(ms: number): void {
    const at = Date.now() + Math.max(0, ms);
    if (this.sweeping) this.askedAt = Math.min(this.askedAt, at);
    else this.arm(at);
  }

  /** When the next sweep is armed for (epoch ms; Infinity: none). */
  get nextSweepAt(): number {
    return this.timerAt;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timerAt = Infinity;
  }

  private arm(at: number): void {
    if (this.stopped) return;
    const when = Math.max(at, this.lastSweepAt + this.opts.minGapMs);
    if (when >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = when;
    this.timer = setTimeout(() => void this.fire(), Math.min(MAX_TIMER_MS, Math.max(0, when - Date.now()) + MARGIN_MS));
    this.timer.unref();
  }

  private async fire(): Promise<void> {
    const armedFor = this.timerAt;
    this.timerAt = Infinity;
    if (this.stopped) return;
    // A due time beyond the longest timer: not due yet, wait again.
    if (armedFor > Date.now()) {
      this.arm(armedFor);
      return;
    }
    this.sweeping = true;
    this.askedAt = Infinity;
    this.lastSweepAt = Date.now();
    let next: number | null;
    try {
      next = await this.opts.sweep();
    } catch (err) {
      this.opts.onError?.(err as Error);
      next = 0;
    } finally {
      this.sweeping = false;
    }
    if (next !== null) this.arm(Date.now() + Math.max(0, next));
    if (this.askedAt < Infinity) this.arm(this.askedAt);
  }
}
