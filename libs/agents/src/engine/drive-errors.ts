import type { Logger } from '@nestjs/common';
import { isTransientDatabaseError } from '@warden/database';
import { LlmError } from '../llm/llm-provider.js';
import { RunSuspendedError, type LiveRun } from './live-run.js';
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
      logger.warn({ runId, reason: (e as Error).message }, 'could not record the failure; the run is left for recovery'),
    );
  return false;
}

/** Stops this process's drive of a run it no longer holds: aborts with an interruption (never a cancel). */
export function abortOnLeaseLost(logger: Logger, live: LiveRun | undefined, runId: string, detail: string): LeaseLostError {
  const err = new LeaseLostError(runId, detail);
  if (live && !live.abort.signal.aborted) {
    logger.warn({ runId, detail }, 'run lease taken over by another instance or the run ended elsewhere; stopping here');
    live.abort.abort(err);
  }
  return err;
}
