import type { Logger } from '@nestjs/common';
import { activeTraceId, inSpan, type Bus } from '@warden/common';
import { isTransientDatabaseError, LeaseKeeper } from '@warden/database';
import { RunInterruptedError } from '@warden/hooks';
import { LlmError } from '../llm/llm-provider.js';
import { ACTIVE_RUN_STATUSES, type ToolTurnState } from '../runs/run.entity.js';
import {
  RUN_LEFT,
  RUN_PARKED,
  RunSuspendedError,
  type LiveRun,
  type RunOutcome,
  type RunParkedEvent,
} from './live-run.js';
import type { ParkedLives } from './parked-lives.js';
import { LeaseLostError } from './run-fence.js';
import type { RunFinisher } from './run-finisher.js';
import type { RunStore } from './run-store.js';

/** On shutdown, how long runs get to reach a point where they can stop cleanly before they are aborted. */
const SHUTDOWN_GRACE_MS = 5_000;
const SHUTDOWN_ABORT_WAIT_MS = 2_000;
/** The longest `stop` takes: a deployment's stop grace period leaves room for it (checked in test/deploy). */
export const SHUTDOWN_DRAIN_MS = SHUTDOWN_GRACE_MS + SHUTDOWN_ABORT_WAIT_MS;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * The drives of runs in this process (RunExecutor's bookkeeping): each drive's completion, live run and lease renewal
 * while it goes on; how it ends — parked, by an error, or leaving its run active (RUN_LEFT) — and the graceful stop of
 * them all.
 */
export class RunDrives {
  private readonly live = new Map<string, LiveRun>();
  private readonly completions = new Map<string, Promise<RunOutcome>>();
  /** True once this instance is stopping (a rejected wait then reads as a suspension; no RUN_LEFT). */
  stopping = false;
  /** One renewal statement per tick for every run this instance drives. */
  private readonly keeper: LeaseKeeper;
  // Set on the signal itself: Nest closes the confirmation waiter (rejecting approval waits) before this
  // module's destroy hook runs, and such a rejected wait must read as "stopping", never as a blocked call.
  private readonly onStopSignal = () => void (this.stopping = true);

  constructor(
    private readonly logger: Logger,
    private readonly store: RunStore,
    private readonly finisher: RunFinisher,
    private readonly bus: Bus,
    private readonly parked: ParkedLives,
    leaseMs: number,
  ) {
    this.keeper = new LeaseKeeper(store.dataSource, 'agent_runs', leaseMs, (err) =>
      this.logger.warn(`run lease renewal failed (the next tick retries): ${err.message}`),
    );
  }

  watchStopSignals(): void {
    process.once('SIGTERM', this.onStopSignal);
    process.once('SIGINT', this.onStopSignal);
  }

  unwatchStopSignals(): void {
    process.off('SIGTERM', this.onStopSignal);
    process.off('SIGINT', this.onStopSignal);
  }

  /**
   * Drives `runId` by `execute` in one `run` span (a child run started inside a tool call nests under that call's
   * span, `trace`: a parked run's). The completion never rejects; a drive that leaves its run active emits RUN_LEFT.
   */
  start(runId: string, execute: () => Promise<RunOutcome>, trace?: Record<string, string>): Promise<RunOutcome> {
    const traced = inSpan(
      'run',
      { 'warden.run_id': runId },
      (span) => {
        if (span) void this.store.recordTraceId(runId, activeTraceId());
        return execute().then((o) => {
          span?.setAttribute('warden.run.status', o.status);
          return o;
        });
      },
      trace,
    );
    const completion = traced
      .catch((err: unknown): RunOutcome => {
        // Only reads and lease bookkeeping get here (a step's errors are settled by `settleError`): the run is left
        // for recovery, and the completion promise never rejects (nobody may be awaiting it).
        this.logger.warn(
          { runId, reason: (err as Error).message },
          'run drive stopped by an error; the run is left for recovery',
        );
        return { runId, status: 'running', answer: null, error: null };
      })
      .finally(() => {
        this.completions.delete(runId);
        this.live.delete(runId);
      });
    void completion.then((o) => o.status === 'running' && !this.stopping && this.bus.emit(RUN_LEFT, { runId }));
    this.completions.set(runId, completion);
    return completion;
  }

  /** The drive's live run, once built (a local cancel aborts it; a graceful stop interrupts it). */
  began(live: LiveRun): void {
    this.live.set(live.run.id, live);
  }

  completion(runId: string): Promise<RunOutcome> | undefined {
    return this.completions.get(runId);
  }

  ids(): string[] {
    return [...this.completions.keys()];
  }

  abort(runId: string, reason: Error): void {
    this.live.get(runId)?.abort.abort(reason);
  }

  /** Renews the run's lease at `epoch` until `release`; losing it stops the drive of `live()` (see leaseLost). */
  hold(runId: string, epoch: number, live: () => LiveRun | undefined): void {
    this.keeper.hold(runId, epoch, (detail) => this.leaseLost(live(), runId, detail));
  }

  release(runId: string): void {
    this.keeper.release(runId);
  }

  /** Parks the run (true: this drive ends); false when a decision came first: the turn resumes at the gate now. */
  async park(live: LiveRun, state: ToolTurnState): Promise<boolean> {
    const runId = live.run.id;
    // No renewal may follow the park (a renewal never touches a row without a holder, either).
    this.keeper.release(runId);
    const parked = await this.store.park(live, state);
    if (parked === 'lost') throw this.store.leaseLost(live);
    if (parked === 'decided') {
      this.hold(runId, live.epoch, () => live);
      return false;
    }
    live.outcome = { runId, status: 'waiting', answer: null, error: null };
    live.run.state = state;
    this.parked.keep(live);
    const approvals = (state.parked_calls ?? []).map((c) => ({
      confirmationId: c.confirmation_id,
      expiresAt: c.expires_at,
    }));
    this.bus.emit(RUN_PARKED, { runId, approvals } satisfies RunParkedEvent);
    return true;
  }

  /**
   * What an error ends: a suspension (shutdown: the lease is handed back at once), an interruption (lease lost,
   * cancelled, a database blip: nothing more is written, the run's holder or recovery goes on), or the run (failed).
   * Returns whether to release the lease now.
   */
  async settleError(runId: string, epoch: number, live: LiveRun | undefined, err: unknown): Promise<boolean> {
    const reason = err instanceof Error ? err.message : String(err);
    if (err instanceof RunSuspendedError || this.stopping) {
      this.logger.log({ runId, reason }, 'run suspended; it continues from its checkpoint');
      return true;
    }
    if (err instanceof LeaseLostError || live?.abort.signal.aborted) return false;
    if (isTransientDatabaseError(err)) {
      // The lease runs out and recovery (here or elsewhere) continues from the last committed step.
      this.logger.warn({ runId, reason }, 'database error during a step; the run is left for recovery');
      return false;
    }
    if (err instanceof LlmError) this.logger.warn({ runId, reason }, 'run failed: model error');
    else this.logger.error({ err, runId }, 'run failed unexpectedly');
    const run = live?.run ?? (await this.store.get(runId));
    await this.finisher
      .finish(run, 'failed', { error: reason }, { epoch, live })
      .catch((e: unknown) =>
        this.logger.warn(
          { runId, reason: (e as Error).message },
          'could not record the failure; the run is left for recovery',
        ),
      );
    return false;
  }

  /** Stops this process's drive of a run it no longer holds: aborts with an interruption (never a cancel). */
  private leaseLost(live: LiveRun | undefined, runId: string, detail: string): LeaseLostError {
    const err = new LeaseLostError(runId, detail);
    if (live && !live.abort.signal.aborted) {
      this.logger.warn(
        { runId, detail },
        'run lease taken over by another instance or the run ended elsewhere; stopping here',
      );
      live.abort.abort(err);
    }
    return err;
  }

  /**
   * Graceful stop of this instance's drives: no step starts any more; a call waiting for approval in process is
   * suspended (back to `pending`, its request stays pending); a model or tool call in progress gets a grace period,
   * then is aborted. Every write of a run is awaited (its drive settles), then the leases this instance holds end
   * now, so another instance — or this one, restarted — continues the runs at once.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    const settled = () => Promise.allSettled([...this.completions.values()]);
    await Promise.race([settled(), sleep(SHUTDOWN_GRACE_MS)]);
    for (const live of this.live.values()) live.abort.abort(new RunInterruptedError('the server is shutting down'));
    await Promise.race([settled(), sleep(SHUTDOWN_ABORT_WAIT_MS)]);
    await this.store.leases
      .releaseAll()
      .catch((err: unknown) => this.logger.error(`could not release run leases: ${(err as Error).message}`));
  }

  /** Settles when the run ends: from memory when this process drives it, else by watching its event log. */
  async waitForEnd(runId: string, signal?: AbortSignal): Promise<RunOutcome> {
    const local = this.completions.get(runId);
    if (local) {
      // A drive that stopped without ending the run (lease lost, database blip, parked) leaves it to another driver.
      const outcome = await local;
      if (!ACTIVE_RUN_STATUSES.includes(outcome.status)) return outcome;
    }
    // Driven elsewhere, or by nobody until a decision: its event log says when it ends (LISTEN, no polling).
    const ended = await this.store.waitForDone(runId, signal ?? new AbortController().signal);
    const run = await this.store.get(runId);
    if (ended || !ACTIVE_RUN_STATUSES.includes(run.status))
      return { runId, status: run.status, answer: run.answer, error: run.error };
    return { runId, status: run.status, answer: null, error: 'stopped waiting' };
  }
}
