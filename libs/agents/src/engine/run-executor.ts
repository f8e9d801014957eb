import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AppConfig, type Bus } from '@warden/common';
import { AgentRun, type RunState } from '../runs/run.entity.js';
import { DagSteps } from './dag-steps.js';
import { LiveRunBuilder } from './live-run-builder.js';
import {
  RUN_CANCELLED,
  RunSuspendedError,
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
import { RunDrives } from './run-drives.js';
import type { ParkedClaim } from './run-leases.js';
import { RunFinisher } from './run-finisher.js';
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
  private readonly drives: RunDrives;

  constructor(
    private readonly lives: LiveRunBuilder,
    private readonly toolCalls: ToolCallRecovery,
    @Inject(EventEmitter2) private readonly bus: Bus,
    private readonly config: AppConfig,
    private readonly store: RunStore,
    private readonly finisher: RunFinisher,
    private readonly factory: RunFactory,
    private readonly react: ReactSteps,
    private readonly dag: DagSteps,
    private readonly parked: ParkedLives,
  ) {
    this.drives = new RunDrives(this.logger, store, finisher, bus, parked, config.runLeaseMs);
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
    const existing = this.drives.completion(runId);
    if (existing) return existing;
    return this.drive(runId);
  }

  /** Drives a parked run claimed here (ParkedRunResumer), once the drive that parked it here has wound down. */
  resumeClaimed(claim: ParkedClaim): Promise<RunOutcome> {
    const previous = this.drives.completion(claim.id);
    if (previous) return previous.then(() => this.resumeClaimed(claim));
    return this.drive(claim.id, undefined, undefined, claim);
  }

  /** True while this process drives the run (the recovery loop never claims those). */
  isDriving(runId: string): boolean {
    return this.drives.completion(runId) !== undefined;
  }

  /** Ids of the runs this process drives. */
  drivingIds(): string[] {
    return this.drives.ids();
  }

  get isStopping(): boolean {
    return this.drives.stopping;
  }

  /** Settles when the run ends: from memory when this process drives it, else by watching its event log. */
  waitForRun(runId: string, signal?: AbortSignal): Promise<RunOutcome> {
    return this.drives.waitForEnd(runId, signal);
  }

  /**
   * Ends the run `cancelled` (with its active child runs) from any instance: in one transaction the run ends and its
   * pending confirmations expire (NOTIFY wakes their waiters wherever they are, so later decisions get 409); the
   * driving instance's next write fails its fence, so it stops before sending anything. Aborts the local drive.
   */
  async cancel(runId: string): Promise<boolean> {
    const run = await this.store.get(runId);
    const won = await this.finisher.finish(run, 'cancelled', { error: 'the run was cancelled' });
    this.drives.abort(runId, new Error('run cancelled'));
    for (const child of await this.store.activeChildren(runId)) await this.cancel(child.id);
    if (won) this.bus.emit(RUN_CANCELLED, { runId, orgId: run.orgId });
    return won;
  }

  onModuleInit(): void {
    this.drives.watchStopSignals();
  }

  /** Graceful stop (RunDrives.stop): runs before the database closes. Parked runs have nothing here to stop. */
  onModuleDestroy(): Promise<void> {
    return this.drives.stop();
  }

  onApplicationShutdown(): void {
    this.drives.unwatchStopSignals();
  }

  /** `created`: just created here, leased at epoch 1 (no claim, no read); `claimed`: a parked run claimed here. */
  private drive(runId: string, prepared?: PreparedRun, created?: AgentRun, claimed?: ParkedClaim): Promise<RunOutcome> {
    const execute = () => this.execute(runId, prepared, created, claimed?.epoch);
    return this.drives.start(runId, execute, claimed?.trace);
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
    this.drives.hold(runId, epoch, () => live);
    let release = false;
    try {
      const revived = claimed === undefined ? undefined : await this.parked.revive(runId, epoch);
      live =
        revived ??
        (await this.lives.build(created ?? (await this.store.get(runId)), epoch, () => this.drives.stopping, prepared));
      this.drives.began(live);
      // A revived run was parked by this process and held by nobody since: no call of it can be in flight.
      if (!prepared && !revived) await this.toolCalls.settleInterrupted(live);
      let state = live.run.state;
      for (;;) {
        if (this.drives.stopping) throw new RunSuspendedError('the server is stopping');
        // No re-read between steps: every write is fenced by the epoch, so a run cancelled or taken over elsewhere
        // stops this drive at its next write (and a local cancel aborts it at once).
        if (live.abort.signal.aborted) break;
        const next = await this.step(live, state);
        if (next === 'finished') break;
        if ('park' in next) {
          state = next.park;
          if (await this.drives.park(live, next.park)) break;
        } else if ('saved' in next) state = next.saved;
        else if ('carry' in next) state = next.carry;
        else if (await this.store.saveState(live, next)) state = next;
        else break;
        live.run.state = state;
      }
    } catch (err) {
      release = await this.drives.settleError(runId, epoch, live, err);
    } finally {
      this.drives.release(runId);
      if (release) await this.store.leases.release(runId, epoch).catch(() => undefined);
    }
    return live?.outcome ?? this.store.outcome(runId);
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
