import type { Logger } from '@nestjs/common';
import { isTransientDatabaseError } from '@warden/database';
import { LlmError } from '../llm/llm-provider.js';
import { RunInterruptedError } from '@warden/hooks';
import { ACTIVE_RUN_STATUSES } from '../runs/run.entity.js';
import { RunSuspendedError, type LiveRun, type RunOutcome } from './live-run.js';
import { LeaseLostError } from './run-fence.js';
import type { RunStore } from './run-store.js';

/** What settling a drive's error needs from its executor. */
export interface DriveErrorContext {
  logger: Logger;
  store: RunStore;
  /** True once this instance is stopping (a rejected wait then reads as a suspension). */
  stopping: boolean;
}

/**
 * What an error ends: a suspension (shutdown: the lease is handed back at once), an interruption (lease lost,
 * cancelled, a database blip: nothing more is written, the run's holder or recovery goes on), or the run (failed).
 * Returns whether to release the lease now.
 */
export async function settleDriveError(
  ctx: DriveErrorContext,
  runId: string,
  epoch: number,
  live: LiveRun | undefined,
  err: unknown,
): Promise<boolean> {
  const { logger, store } = ctx;
  const reason = err instanceof Error ? err.message : String(err);
  if (err instanceof RunSuspendedError || ctx.stopping) {
    logger.log({ runId, reason }, 'run suspended; it continues from its checkpoint');
    return true;
  }
  if (err instanceof LeaseLostError || live?.abort.signal.aborted) return false;
  if (isTransientDatabaseError(err)) {
    // The lease runs out and recovery (here or elsewhere) continues from the last committed step.
    logger.warn({ runId, reason }, 'database error during a step; the run is left for recovery');
    return false;
  }
  if (err instanceof LlmError) logger.warn({ runId, reason }, 'run failed: model error');
  else logger.error({ err, runId }, 'run failed unexpectedly');
  const run = live?.run ?? (await store.get(runId));
  await store
    .finish(run, 'failed', { error: reason }, { epoch, live })
    .catch((e: unknown) =>
      logger.warn(
        { runId, reason: (e as Error).message },
        'could not record the failure; the run is left for recovery',
      ),
    );
  return false;
}

/** Stops this process's drive of a run it no longer holds: aborts with an interruption (never a cancel). */
export function abortOnLeaseLost(
  logger: Logger,
  live: LiveRun | undefined,
  runId: string,
  detail: string,
): LeaseLostError {
  const err = new LeaseLostError(runId, detail);
  if (live && !live.abort.signal.aborted) {
    logger.warn(
      { runId, detail },
      'run lease taken over by another instance or the run ended elsewhere; stopping here',
    );
    live.abort.abort(err);
  }
  return err;
}

/** On shutdown, how long runs get to reach a point where they can stop cleanly before they are aborted. */
const SHUTDOWN_GRACE_MS = 5_000;
const SHUTDOWN_ABORT_WAIT_MS = 2_000;
/** The longest stopDrives takes: a deployment's stop grace period leaves room for it (checked in test/deploy). */
export const SHUTDOWN_DRAIN_MS = SHUTDOWN_GRACE_MS + SHUTDOWN_ABORT_WAIT_MS;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Graceful stop of this instance's drives: no step starts any more; a call waiting for approval in process is
 * suspended (back to `pending`, its request stays pending); a model or tool call in progress gets a grace period,
 * then is aborted. Every write of a run is awaited (its drive settles), then the leases this instance holds end
 * now, so another instance — or this one, restarted — continues the runs at once.
 */
export async function stopDrives(
  logger: Logger,
  store: RunStore,
  completions: Map<string, Promise<RunOutcome>>,
  lives: Map<string, LiveRun>,
): Promise<void> {
  const settled = () => Promise.allSettled([...completions.values()]);
  await Promise.race([settled(), sleep(SHUTDOWN_GRACE_MS)]);
  for (const live of lives.values()) live.abort.abort(new RunInterruptedError('the server is shutting down'));
  await Promise.race([settled(), sleep(SHUTDOWN_ABORT_WAIT_MS)]);
  await store.leases
    .releaseAll()
    .catch((err: unknown) => logger.error(`could not release run leases: ${(err as Error).message}`));
}

/** Settles when the run ends: from `local` (this process's drive) when given, else by watching its event log. */
export async function waitForRunEnd(
  store: RunStore,
  runId: string,
  local: Promise<RunOutcome> | undefined,
  signal?: AbortSignal,
): Promise<RunOutcome> {
  if (local) {
    // A drive that stopped without ending the run (lease lost, database blip, parked) leaves it to another driver.
    const outcome = await local;
    if (!ACTIVE_RUN_STATUSES.includes(outcome.status)) return outcome;
  }
  // Driven elsewhere, or by nobody until a decision: its event log says when it ends (LISTEN, no polling).
  const ended = await store.waitForDone(runId, signal ?? new AbortController().signal);
  const run = await store.get(runId);
  if (ended || !ACTIVE_RUN_STATUSES.includes(run.status))
    return { runId, status: run.status, answer: run.answer, error: run.error };
  return { runId, status: run.status, answer: null, error: 'stopped waiting' };
}
