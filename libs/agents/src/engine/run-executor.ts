import { Injectable, Logger, type OnApplicationShutdown, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { activeTraceId, annotateSpan, AppConfig, DomainErrorKind, DomainException, inSpan, isUuid, NotFoundError } from '@warden/common';
import { HookBuildError, HookRegistry, HookResolver, RunInterruptedError, type Surface } from '@warden/hooks';
import { randomBytes } from 'node:crypto';
import { isTransientDatabaseError, LeaseKeeper } from '@warden/database';
import { DataSource, type EntityManager } from 'typeorm';
import { hookSettingsOf, parseAgentConfig, withConfirmationOverride } from '../agents/agent-config.js';
import type { Agent } from '../agents/agent.entity.js';
import { AgentsService } from '../agents/agents.service.js';
import { LlmProviderFactory } from '../llm/llm-provider.factory.js';
import { LlmError, type ChatMessage } from '../llm/llm-provider.js';
import { RunEventsService } from '../runs/run-events.service.js';
import { ACTIVE_RUN_STATUSES, AgentRun, Conversation, type RunState, type ToolRunSpec } from '../runs/run.entity.js';
import { DagSteps } from './dag-steps.js';
import { RUN_CANCELLED, RunSuspendedError, type LiveRun, type PreparedRun, type RunOutcome, type StartedRun, type StartRunOptions, type StepOutcome } from './live-run.js';
import { ReactSteps } from './react-steps.js';
import { LeaseLostError } from './run-fence.js';
import { RunStore } from './run-store.js';
import { ToolCallRunner } from './tool-call-runner.js';

export * from './live-run.js';

const DEFAULT_INSTRUCTIONS = 'You are a helpful assistant.';
/** On shutdown, how long runs get to reach a point where they can stop cleanly before they are aborted. */
const SHUTDOWN_GRACE_MS = 5_000;
const SHUTDOWN_ABORT_WAIT_MS = 2_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
const newCallId = () => `call_${randomBytes(12).toString('hex')}`;

/**
 * Starts and drives agent runs on every surface (chat, api, dag steps, delegates, workflows, evals). A run is a
 * state machine over `agent_runs.state`: each step reads the persisted state, does one thing (hooks, a model call,
 * a turn's tool calls, a DAG stage), and writes the new state before the next step — so another instance can
 * continue it from the database.
 */
@Injectable()
export class RunExecutor implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(RunExecutor.name);
  private readonly live = new Map<string, LiveRun>();
  private readonly completions = new Map<string, Promise<RunOutcome>>();
  private stopping = false;
  /** One renewal statement per tick for every run this instance drives. */
  private readonly leases: LeaseKeeper;
  // Set on the signal itself: Nest closes the confirmation waiter (rejecting approval waits) before this
  // module's destroy hook runs, and such a rejected wait must read as "stopping", never as a blocked call.
  private readonly onStopSignal = () => void (this.stopping = true);

  constructor(
    private readonly dataSource: DataSource,
    private readonly agents: AgentsService,
    private readonly hooks: HookResolver,
    private readonly llm: LlmProviderFactory,
    private readonly toolCalls: ToolCallRunner,
    private readonly events: RunEventsService,
    private readonly bus: EventEmitter2,
    private readonly config: AppConfig,
    private readonly store: RunStore,
    private readonly react: ReactSteps,
    private readonly dag: DagSteps,
  ) {
    this.leases = new LeaseKeeper(dataSource, 'agent_runs', config.runLeaseMs,
      (err) => this.logger.warn(`run lease renewal failed (the next tick retries): ${err.message}`));
  }

  /**
   * Records the run and its `run` event, builds its hooks (a build error refuses the run: status `refused`,
   * `error` + `done` events, then a RunRefused 422 is thrown), and executes it detached from the caller.
   */
  async start(opts: StartRunOptions): Promise<StartedRun> {
    const { agent, config } = await this.agents.findWithConfig(opts.orgId, opts.agentId);
    const mode = opts.mode ?? 'react';
    // The conversation, the run and its `run` event commit together.
    const run = await this.store.transaction(async (tx) => {
      const conversation = await this.conversationFor(opts, tx.m);
      const messages: ChatMessage[] = [
        { role: 'system', content: agent.instructions || DEFAULT_INSTRUCTIONS },
        ...(conversation?.messages ?? []),
        { role: 'user', content: opts.message },
      ];
      const state: RunState = {
        phase: 'start', messages, turns: 0, pending_calls: [], ...(opts.eval ? { eval: opts.eval } : {}),
        ...(opts.confirmationOverride ? { confirmation_override: opts.confirmationOverride } : {}),
      };
      const created = await tx.m.getRepository(AgentRun).save({
        orgId: opts.orgId, agentId: agent.id, userId: opts.userId, conversationId: conversation?.id ?? null,
        parentRunId: opts.parentRunId ?? null, parentCallId: opts.parentCallId ?? null, surface: opts.surface, mode,
        status: 'running' as const, hooks: opts.eval ? 'bypassed' as const : 'active' as const, message: opts.message,
        answer: null, error: null, state, eventSeq: 0,
        // Leased from birth (epoch 1), so no recovery loop takes a run that is just starting.
        lockedBy: this.config.instanceId, leaseUntil: new Date(Date.now() + this.config.runLeaseMs), leaseEpoch: 1, finishedAt: null,
      });
      await this.events.appendIf(created.id, 'run', {
        run_id: created.id, agent_id: agent.id, conversation_id: created.conversationId, surface: created.surface, mode,
        hooks: created.hooks, parent_run_id: created.parentRunId, parent_call_id: created.parentCallId,
      }, { runner: tx.m, batch: tx.batch });
      return created;
    });
    const settings = withConfirmationOverride(hookSettingsOf(agent, config), opts.confirmationOverride);
    let registry: HookRegistry;
    try {
      registry = opts.eval ? this.hooks.resolveBypassed(settings) : await this.hooks.resolve({ hooksConfig: config.hooks, agent: settings });
    } catch (err) {
      const message = err instanceof HookBuildError ? err.message : `the agent's hooks cannot be built: ${(err as Error).message}`;
      await this.store.finish(run, 'refused', { error: message });
      throw err instanceof HookBuildError ? err : new DomainException(DomainErrorKind.RunRefused, message);
    }
    const completion = this.drive(run.id, { agent, config, settings, registry }, run);
    return { runId: run.id, conversationId: run.conversationId, completion };
  }

  /**
   * A one-call run on `surface` (workflow CONNECTOR nodes): the call goes through the same pipeline as an agent's tool
   * call — the hooks of `hooksConfig` plus every auto-attached hook (so the approval gate), a durable tool-call record,
   * exactly-once execution — and its observation is the run's answer. `ownerId` stands in for the agent id.
   */
  async startToolRun(opts: {
    orgId: string; userId: string; ownerId: string; ownerUserId: string | null; name: string; surface: Surface;
    tool: string; args: Record<string, unknown>; hooksConfig?: unknown; confirmation?: Record<string, unknown>;
  }): Promise<StartedRun> {
    const spec: ToolRunSpec = {
      owner_id: opts.ownerId, name: opts.name, owner_user_id: opts.ownerUserId,
      model_config_json: { model: { provider: 'scripted', script: [{ content: '' }] }, tools: [opts.tool], max_iterations: 1,
        ...(opts.hooksConfig ? { hooks: opts.hooksConfig } : {}), ...(opts.confirmation ? { confirmation: opts.confirmation } : {}) },
    };
    const call = { call_id: newCallId(), tool: opts.tool, args: opts.args };
    const state: RunState = { phase: 'tools', messages: [], turns: 0, pending_calls: [call], tool_run: spec };
    const run = await this.dataSource.getRepository(AgentRun).save({
      orgId: opts.orgId, agentId: opts.ownerId, userId: opts.userId, conversationId: null, parentRunId: null, parentCallId: null,
      surface: opts.surface, mode: 'react' as const, status: 'running' as const, hooks: 'active' as const, message: `${opts.tool} ${JSON.stringify(opts.args)}`,
      answer: null, error: null, state, eventSeq: 0,
      lockedBy: this.config.instanceId, leaseUntil: new Date(Date.now() + this.config.runLeaseMs), leaseEpoch: 1, finishedAt: null,
    });
    await this.events.append(run.id, 'run', { run_id: run.id, agent_id: opts.ownerId, conversation_id: null, surface: run.surface, mode: 'react', hooks: 'active', parent_run_id: null, parent_call_id: null });
    let prepared: Pick<LiveRun, 'agent' | 'config' | 'settings' | 'registry'>;
    try {
      prepared = await this.prepareToolRun(spec);
    } catch (err) {
      const message = err instanceof HookBuildError ? err.message : `the hooks cannot be built: ${(err as Error).message}`;
      await this.store.finish(run, 'refused', { error: message });
      throw err instanceof HookBuildError ? err : new DomainException(DomainErrorKind.RunRefused, message);
    }
    await this.toolCalls.record(run.id, [call]);
    await this.events.append(run.id, 'tool_call', { run_id: run.id, surface: run.surface, call_id: call.call_id, tool: call.tool, args: call.args });
    const completion = this.drive(run.id, prepared);
    return { runId: run.id, conversationId: null, completion };
  }

  private async prepareToolRun(spec: ToolRunSpec): Promise<Pick<LiveRun, 'agent' | 'config' | 'settings' | 'registry'>> {
    const { config } = parseAgentConfig(spec.model_config_json);
    const agent = { id: spec.owner_id, name: spec.name, ownerUserId: spec.owner_user_id, instructions: '' } as Agent;
    const settings = hookSettingsOf(agent, config);
    return { agent, config, settings, registry: await this.hooks.resolve({ hooksConfig: config.hooks, agent: settings }) };
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

  /** Settles when the run ends: from memory when this process drives it, else by watching its row. */
  async waitForRun(runId: string, signal?: AbortSignal): Promise<RunOutcome> {
    const local = this.completions.get(runId);
    if (local) {
      // A drive that stopped without ending the run (lease lost, database blip) leaves it to another driver.
      const outcome = await local;
      if (!ACTIVE_RUN_STATUSES.includes(outcome.status)) return outcome;
    }
    const repo = this.dataSource.getRepository(AgentRun);
    for (;;) {
      const run = await repo.findOneByOrFail({ id: runId });
      if (!ACTIVE_RUN_STATUSES.includes(run.status)) return { runId, status: run.status, answer: run.answer, error: run.error };
      if (signal?.aborted) return { runId, status: run.status, answer: null, error: 'stopped waiting' };
      await new Promise((r) => setTimeout(r, 500));
    }
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

  /**
   * Graceful stop: no step starts any more; runs waiting for approval are suspended (their call goes back to
   * `pending`, the confirmation row stays pending); a model or tool call in progress gets a grace period, then is
   * aborted. Every write of a run is awaited (its drive settles), then the leases this instance holds end now, so
   * another instance — or this one, restarted — continues the runs at once. Runs before the database closes.
   */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    const settled = () => Promise.allSettled([...this.completions.values()]);
    await Promise.race([settled(), sleep(SHUTDOWN_GRACE_MS)]);
    for (const live of this.live.values()) live.abort.abort(new RunInterruptedError('the server is shutting down'));
    await Promise.race([settled(), sleep(SHUTDOWN_ABORT_WAIT_MS)]);
    await this.dataSource.query(
      `UPDATE agent_runs SET lease_until = now() WHERE locked_by = $1 AND status IN ('running', 'waiting')`, [this.config.instanceId],
    ).catch((err: Error) => this.logger.error(`could not release run leases: ${err.message}`));
  }

  onApplicationShutdown(): void {
    process.off('SIGTERM', this.onStopSignal);
    process.off('SIGINT', this.onStopSignal);
  }

  /** `created`: a run this process just created, leased to it at epoch 1 (no claim, no read needed). */
  private drive(runId: string, prepared?: PreparedRun, created?: AgentRun): Promise<RunOutcome> {
    // One `run` span per drive; a child run started inside a tool call nests under that call's span.
    const traced = inSpan('run', { 'warden.run_id': runId }, (span) => {
      if (span) void this.store.recordTraceId(runId, activeTraceId());
      return this.execute(runId, prepared, created).then((o) => { span?.setAttribute('warden.run.status', o.status); return o; });
    });
    const completion = traced
      .catch((err: unknown): RunOutcome => {
        // Only reads and lease bookkeeping get here (a step's errors are handled in execute): the run is left for
        // recovery, and the completion promise never rejects (nobody may be awaiting it).
        this.logger.warn({ runId, reason: (err as Error).message }, 'run drive stopped by an error; the run is left for recovery');
        return { runId, status: 'running', answer: null, error: null };
      })
      .finally(() => {
        this.completions.delete(runId);
        this.live.delete(runId);
      });
    this.completions.set(runId, completion);
    return completion;
  }

  private async execute(runId: string, prepared?: PreparedRun, created?: AgentRun): Promise<RunOutcome> {
    const epoch = created ? created.leaseEpoch : await this.store.acquire(runId);
    // Another instance holds a live lease: it drives the run, not us.
    if (epoch === null) return this.store.outcome(runId);
    let live: LiveRun | undefined;
    this.leases.hold(runId, epoch, (detail) => this.leaseLost(live, runId, detail));
    let release = false;
    try {
      const repo = this.dataSource.getRepository(AgentRun);
      live = await this.liveRun(created ?? await repo.findOneByOrFail({ id: runId }), epoch, prepared);
      this.live.set(runId, live);
      if (!prepared) await this.toolCalls.settleInterrupted(live);
      let state = live.run.state;
      for (;;) {
        if (this.stopping) throw new RunSuspendedError('the server is stopping');
        // No re-read between steps: every write is fenced by the epoch, so a run cancelled or taken over elsewhere
        // stops this drive at its next write (and a local cancel aborts it at once).
        if (live.abort.signal.aborted) break;
        const next = await this.step(live, state);
        if (next === 'finished') break;
        if ('saved' in next) state = next.saved;
        else if (await this.store.saveState(live, next)) state = next;
        else break;
        live.run.state = state;
      }
    } catch (err) {
      release = await this.stopOnError(runId, epoch, live, err);
    } finally {
      this.leases.release(runId);
      if (release) await this.store.releaseLease(runId, epoch).catch(() => undefined);
    }
    return this.store.outcome(runId);
  }

  /**
   * What an error ends: a suspension (shutdown: the lease is handed back at once), an interruption (lease lost,
   * cancelled, a database blip: nothing more is written, the run's holder or recovery goes on), or the run (failed).
   * Returns whether to release the lease now.
   */
  private async stopOnError(runId: string, epoch: number, live: LiveRun | undefined, err: unknown): Promise<boolean> {
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
    const run = live?.run ?? await this.dataSource.getRepository(AgentRun).findOneByOrFail({ id: runId });
    await this.store.finish(run, 'failed', { error: reason }, { epoch }).catch((e: Error) =>
      this.logger.warn({ runId, reason: e.message }, 'could not record the failure; the run is left for recovery'));
    return false;
  }

  /** Stops this process's drive of a run it no longer holds: aborts with an interruption (never a cancel). */
  private leaseLost(live: LiveRun | undefined, runId: string, detail: string): LeaseLostError {
    const err = new LeaseLostError(runId, detail);
    if (live && !live.abort.signal.aborted) {
      this.logger.warn({ runId, detail }, 'run lease taken over by another instance or the run ended elsewhere; stopping here');
      live.abort.abort(err);
    }
    return err;
  }

  private async liveRun(run: AgentRun, epoch: number, prepared?: PreparedRun): Promise<LiveRun> {
    const base = prepared ?? (run.state.tool_run ? await this.prepareToolRun(run.state.tool_run) : undefined) ?? await (async () => {
      const { agent, config } = await this.agents.findWithConfig(run.orgId, run.agentId);
      const settings = withConfirmationOverride(hookSettingsOf(agent, config), run.state.confirmation_override);
      const registry = run.hooks === 'bypassed' ? this.hooks.resolveBypassed(settings) : await this.hooks.resolve({ hooksConfig: config.hooks, agent: settings });
      return { agent, config, settings, registry };
    })();
    const abort = new AbortController();
    const ancestors = await this.store.ancestorsOf(run);
    annotateSpan({ 'warden.surface': run.surface, 'warden.agent_id': run.agentId, 'warden.org_id': run.orgId, 'warden.mode': run.mode });
    const live: LiveRun = {
      ...base, run, abort, epoch, ancestors, provider: this.llm.create(base.config.model), emit: async () => undefined, isStopping: () => this.stopping,
    };
    live.emit = (type, data) => this.emitEvent(live, type, data);
    return live;
  }

  /** One step of the state machine; returns the next state, or 'finished' once the run has its final status. */
  private async step(live: LiveRun, state: RunState): Promise<StepOutcome> {
    switch (state.phase) {
      case 'start': return this.react.sessionStart(live, state);
      case 'llm': return this.react.modelTurn(live, state);
      case 'tools': return this.react.toolTurn(live, state);
      case 'plan': return this.dag.plan(live, state);
      case 'steps': return this.dag.runSteps(live, state, this);
      case 'synthesis': return this.dag.synthesize(live, state);
    }
  }

  /**
   * The `emit` of a live run: persists the event on the run — only while this driver holds it at its epoch (else the
   * drive stops with LeaseLostError, writing nothing) — and on each ancestor run (so a DAG step's or a delegate's
   * story appears in the caller's stream). A pending confirmation makes the run (and its ancestors) `waiting` until
   * it is resolved.
   */
  private async emitEvent(live: LiveRun, type: string, data: Record<string, unknown>): Promise<void> {
    await this.store.appendToStreams(live, type, data);
    if (type === 'confirmation_pending') await this.store.setWaiting(live, true);
    if (type === 'confirmation_resolved') await this.store.setWaiting(live, false);
  }

  private async conversationFor(opts: StartRunOptions, m: EntityManager): Promise<Conversation | null> {
    const repo = m.getRepository(Conversation);
    if (opts.conversationId) {
      const found = isUuid(opts.conversationId)
        ? await repo.findOneBy({ id: opts.conversationId, orgId: opts.orgId, userId: opts.userId, agentId: opts.agentId })
        : null;
      if (!found) throw new NotFoundError('conversation', opts.conversationId);
      return found;
    }
    if (opts.surface !== 'chat' && opts.surface !== 'api') return null;
    return repo.save({ orgId: opts.orgId, agentId: opts.agentId, userId: opts.userId, messages: [] });
  }
}
