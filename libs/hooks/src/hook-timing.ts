import { tracingEnabled } from '@warden/common';
import type { HookChainRun } from './hook-chain-run.js';

/** `performance` is a lazy accessor on globalThis: read once. */
const clock = performance;

/**
 * Which chain runs time their synchronous hooks one by one. A clock read costs about what a no-op hook does (half of
 * a 10 + 10 no-op pipeline's time was its 21 reads), while a synchronous hook's duration rounds to 0.000 ms unless it
 * does real work. So synchronous hooks are timed one by one on a sample of chain runs — the first run, then one in
 * `SAMPLE_EVERY`, every run while tracing is on or `HOOK_TIMING=every` — and after an untimed run whose synchronous
 * hooks took `SLOW_MS` or more together, on the next `SAMPLE_EVERY` runs, so that a slow hook shows its duration at
 * once. On the other runs a synchronous hook's outcome reports 0 ms and is counted, not observed, in the duration
 * histogram. A hook that returns a promise is always timed (from when it returned to when it settled), as is every
 * hook after it in the same chain run.
 */
export type HookTimingMode = 'sampled' | 'every';

export const SAMPLE_EVERY = 16;
export const SLOW_MS = 0.05;

let mode: HookTimingMode = 'sampled';
/** Untimed runs left before the next sampled one. */
let untimedLeft = 0;
/** Runs still to be timed after a slow untimed one. */
let boosted = 0;

/** `every`: time each hook of every chain run (an operator's choice, and tests that assert durations). */
export function setHookTiming(next: HookTimingMode): void {
  mode = next;
  untimedLeft = 0;
  boosted = 0;
}

/** Whether the chain run starting now times each hook (its caller then reads the clock at every hook boundary). */
export function timesEachHook(): boolean {
  if (mode === 'every' || tracingEnabled()) return true;
  if (boosted > 0) {
    boosted--;
    return true;
  }
  if (untimedLeft > 0) {
    untimedLeft--;
    return false;
  }
  untimedLeft = SAMPLE_EVERY - 1;
  return true;
}

/** An untimed run's synchronous hooks took `ms` together: a slow one makes the next runs timed. */
export function noteUntimedHooks(ms: number): void {
  if (ms >= SLOW_MS) boosted = SAMPLE_EVERY;
}

/** An untimed run ends: its synchronous hooks' time together, read once, says whether the next runs are timed. */
export function untimedEnd<R>(run: HookChainRun, result: R): R {
  if (!run.timed) noteUntimedHooks(clock.now() - run.started);
  return result;
}

/**
 * The run goes on asynchronously: from here each hook is timed (an await costs more than the clock). A hook that
 * returned a promise is timed from now, when its synchronous part has returned.
 */
export function timedFromNow(run: HookChainRun): HookChainRun {
  if (run.timed) return run;
  const now = clock.now();
  noteUntimedHooks(now - run.started);
  run.timed = true;
  run.started = now;
  return run;
}
