import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { activeTraceId, AppConfig, inSpan, type Bus } from '@warden/common';
import { LeaseKeeper } from '@warden/database';
import { AgentRun, type RunState, type ToolTurnState } from '../runs/run.entity.js';
import { DagSteps } from './dag-steps.js';
import { abortOnLeaseLost, settleDriveError, stopDrives, waitForRunEnd } from './drive-errors.js';
import { LiveRunBuilder } from './live-run-builder.js';
import {
  RUN_CANCELLED,
  RUN_LEFT,
  RUN_PARKED,
  RunSuspendedError,
  type RunParkedEvent,
  type LiveRun,
  type PreparedRun,
  type RunOutcome,
  type StartedRun,
  type StartRunOptions,
  type StepOutcome,
} from './live-run.js';
import { ReactSteps } from './react-steps.js';
import { RunFactory, type ToolRunOptions } from './run-factory.js';
import { ParkedLives } from './parked-lives.js';
import type { ParkedClaim } from './run-leases.js';
import { RunStore } from './run-store.js';
import { ToolCallRecovery } from './tool-call-recovery.js';

export * from './live-run.js';

/**
 * Starts and drives agent runs on every surface (chat, api, dag steps, delegates, workflows, evals): a state machine
 * over `agent_runs.state` whose every step commits its new state before the next — so any instance can continue it.
 */
@Injectable()
export class RunExecutor implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(RunExecutor.name);
  private readonly live = new Map<string, LiveRun>();
  private readonly completions = new Map<string, Promise<RunOutcome>>();
  private stopping = false;
  /** One renewal statement per tick for every run this instance drives. */
  private readonly keeper: LeaseKeeper;
  // Set on the signal itself: Nest closes the confirmation waiter (rejecting approval waits) before this
  // module's destroy hook runs, and such a rejected wait must read as "stopping", never as a blocked call.
  private readonly onStopSignal = () => void (this.stopping = true);

  constructor(
    private readonly lives: LiveRunBuilder,
    private readonly toolCalls: ToolCallRecovery,
    @Inject(EventEmitter2) private readonly bus: Bus,
    private readonly config: AppConfig,
    private readonly store: RunStore,
    private readonly factory: RunFactory,
    private readonly react: ReactSteps,
    private readonly dag: DagSteps,
    private readonly parked: ParkedLives,
  ) {
    this.keeper = new LeaseKeeper(store.dataSource, 'agent_runs', config.runLeaseMs, (err) =>
      this.logger.warn(`run lease renewal failed (the next tick retries): ${err.message}`),
    );
  }

  /**
   * Records the run and its `run` event, builds its hooks (a build error refuses the run: status `refused`,
   * `error` + `done` events, then a RunRefused 422 is thrown), and executes it detached from the caller.
   */
  async start(opts: StartRunOptions): Promise<StartedRun> {
    const { run, prepared } = await this.factory.createAgentRun(opts);
    return { runId: run.id, conversationId: run.conversationId, completion: this.drive(run.id, prepared, run) };
  }

  /** A one-call run on `opts.surface` (workflow CONNECTOR nodes), through the same pipeline as an agent's tool call. */
  async startToolRun(opts: ToolRunOptions): Promise<StartedRun> {
    const { run, prepared } = await this.factory.createToolRun(opts);
    return { runId: run.id, conversationId: null, completion: this.drive(run.id, prepared, run) };
  }

  /**
   * Continues a persisted run that no process is executing (rebuilds its hooks from the agent's config). The run
   * must be leased to this instance or have an expired lease (the recovery loop claims it first).
   */
  async resume(runId: string): Promise<RunOutcome> {
    const existing = this.completions.get(runId);
    if (existing) return existing;
    return this.drive(runId);
  }

  /** Drives a parked run claimed here (ParkedRunResumer), once the drive that parked it here has wound down. */
  resumeClaimed(claim: ParkedClaim): Promise<RunOutcome> {
    const previous = this.completions.get(claim.id);
    if (previous) return previous.then(() => this.resumeClaimed(claim));
    return this.drive(claim.id, undefined, undefined, claim);
  }

  /** True while this process drives the run (the recovery loop never claims those). */
  isDriving(runId: string): boolean {
    return this.completions.has(runId);
  }

  /** Ids of the runs this process drives. */
  drivingIds(): string[] {
    return [...this.completions.keys()];
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Settles when the run ends: from memory when this process drives it, else by watching its event log. */
  waitForRun(runId: string, signal?: AbortSignal): Promise<RunOutcome> {
    return waitForRunEnd(this.store, runId, this.completions.get(runId), signal);
  }

  /**
   * Ends the run `cancelled` (with its active child runs) from any instance: in one transaction the run ends and its
   * pending confirmations expire (NOTIFY wakes their waiters wherever they are, so later decisions get 409); the
   * driving instance's next write fails its fence, so it stops before sending anything. Aborts the local drive.
   */
  async cancel(runId: string): Promise<boolean> {
    const run = await this.store.get(runId);
    const won = await this.store.finish(run, 'cancelled', { error: 'the run was cancelled' });
    this.live.get(runId)?.abort.abort(new Error('run cancelled'));
    for (const child of await this.store.activeChildren(runId)) await this.cancel(child.id);
    if (won) this.bus.emit(RUN_CANCELLED, { runId, orgId: run.orgId });
    return won;
  }

  onModuleInit(): void {
    process.once('SIGTERM', this.onStopSignal);
    process.once('SIGINT', this.onStopSignal);
  }

  /** Graceful stop (stopDrives): runs before the database closes. Parked runs have nothing here to stop. */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await stopDrives(this.logger, this.store, this.completions, this.live);
  }

  onApplicationShutdown(): void {
    process.off('SIGTERM', this.onStopSignal);
    process.off('SIGINT', this.onStopSignal);
  }

  /** `created`: just created here, leased at epoch 1 (no claim, no read); `claimed`: a parked run claimed here. */
  private drive(runId: string, prepared?: PreparedRun, created?: AgentRun, claimed?: ParkedClaim): Promise<RunOutcome> {
    // One `run` span per drive; a child run started inside a tool call nests under that call's span.
    const traced = inSpan(
      'run',
      { 'warden.run_id': runId },
      (span) => {
        if (span) void this.store.recordTraceId(runId, activeTraceId());
        return this.execute(runId, prepared, created, claimed?.epoch).then((o) => {
          span?.setAttribute('warden.run.status', o.status);
          return o;
        });
      },
      claimed?.trace,
    );
    const completion = traced
      .catch((err: unknown): RunOutcome => {
        // Only reads and lease bookkeeping get here (a step's errors are handled in execute): the run is left for
        // recovery, and the completion promise never rejects (nobody may be awaiting it).
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

  private async execute(
    runId: string,
    prepared?: PreparedRun,
    created?: AgentRun,
    claimed?: number,
  ): Promise<RunOutcome> {
    const epoch = created ? created.leaseEpoch : (claimed ?? (await this.store.leases.acquire(runId)));
    // Another instance holds a live lease: it drives the run, not us.
    if (epoch === null) return this.store.outcome(runId);
    let live: LiveRun | undefined;
    this.keeper.hold(runId, epoch, (detail) => abortOnLeaseLost(this.logger, live, runId, detail));
    let release = false;
    try {
      const revived = claimed === undefined ? undefined : await this.parked.revive(runId, epoch);
      live =
        revived ??
        (await this.lives.build(created ?? (await this.store.get(runId)), epoch, () => this.stopping, prepared));
      this.live.set(runId, live);
      // A revived run was parked by this process and held by nobody since: no call of it can be in flight.
      if (!prepared && !revived) await this.toolCalls.settleInterrupted(live);
      let state = live.run.state;
      for (;;) {
        if (this.stopping) throw new RunSuspendedError('the server is stopping');
        // No re-read between steps: every write is fenced by the epoch, so a run cancelled or taken over elsewhere
        // stops this drive at its next write (and a local cancel aborts it at once).
        if (live.abort.signal.aborted) break;
        const next = await this.step(live, state);
        if (next === 'finished') break;
        if ('park' in next) {
          state = next.park;
          if (await this.park(live, next.park)) break;
        } else if ('saved' in next) state = next.saved;
        else if ('carry' in next) state = next.carry;
        else if (await this.store.saveState(live, next)) state = next;
        else break;
        live.run.state = state;
      }
    } catch (err) {
      const ctx = { logger: this.logger, store: this.store, stopping: this.stopping };
      release = await settleDriveError(ctx, runId, epoch, live, err);
    } finally {
      this.keeper.release(runId);
      if (release) await this.store.leases.release(runId, epoch).catch(() => undefined);
    }
    return live?.outcome ?? this.store.outcome(runId);
  }

  /** Parks the run (true: this drive ends); false when a decision came first: the turn resumes at the gate now. */
  private async park(live: LiveRun, state: ToolTurnState): Promise<boolean> {
    const runId = live.run.id;
    // No renewal may follow the park (a renewal never touches a row without a holder, either).
    this.keeper.release(runId);
    const parked = await this.store.park(live, state);
    if (parked === 'lost') throw this.store.leaseLost(live);
    if (parked === 'decided') {
      this.keeper.hold(runId, live.epoch, (detail) => abortOnLeaseLost(this.logger, live, runId, detail));
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

  /** One step of the state machine; returns the next state, or 'finished' once the run has its final status. */
  private async step(live: LiveRun, state: RunState): Promise<StepOutcome> {
    switch (state.phase) {
      case 'start':
        return this.react.sessionStart(live, state);
      case 'llm':
        return this.react.modelTurn(live, state);
      case 'tools':
        return this.react.toolTurn(live, state);
      case 'plan':
        return this.dag.plan(live, state);
      case 'steps':
        return this.dag.runSteps(live, state, this);
      case 'synthesis':
        return this.dag.synthesize(live, state);
    }
  }
}
