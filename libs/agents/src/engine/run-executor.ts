import { Injectable, Logger, type OnApplicationShutdown, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { activeTraceId, annotateSpan, AppConfig, DomainErrorKind, DomainException, inSpan, isUuid, NotFoundError } from '@warden/common';
import { HookBuildError, HookRegistry, HookResolver, RunInterruptedError, type AgentHookSettings, type RunEventEmitter, type Surface } from '@warden/hooks';
import { randomBytes } from 'node:crypto';
import { isTransientDatabaseError } from '@warden/database';
import { DataSource, type EntityManager } from 'typeorm';
import { hookSettingsOf, parseAgentConfig, withConfirmationOverride, type AgentConfig } from '../agents/agent-config.js';
import type { Agent } from '../agents/agent.entity.js';
import { AgentsService } from '../agents/agents.service.js';
import { LlmProviderFactory } from '../llm/llm-provider.factory.js';
import { LlmError, type ChatMessage, type LlmProvider, type LlmRequest, type LlmTurn } from '../llm/llm-provider.js';
import { RunEventsService } from '../runs/run-events.service.js';
import { ACTIVE_RUN_STATUSES, AgentRun, Conversation, type EvalRunOptions, type RunMode, type RunState, type RunStatus, type ToolRunSpec } from '../runs/run.entity.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { AnswerDeltaStream } from './answer-delta-stream.js';
import { PLANNING_PROMPT, parsePlan } from './dag-plan.js';
import { LeaseLostError } from './run-fence.js';
import { RunSuspendedError, ToolCallRunner } from './tool-call-runner.js';

export interface StartRunOptions {
  orgId: string;
  userId: string;
  agentId: string;
  message: string;
  surface: Surface;
  mode?: RunMode;
  parentRunId?: string;
  parentCallId?: string;
  conversationId?: string;
  /**
   * Eval runs and their children: hooks bypassed (recorded as `hooks: "bypassed"`; only the audit log runs) and
   * tool calls simulated per these options — writes are never sent.
   */
  eval?: EvalRunOptions;
  /** Workflow AGENT nodes: the node's `confirmation` policy over the agent's. */
  confirmationOverride?: Record<string, unknown>;
}

export interface RunOutcome {
  runId: string;
  status: RunStatus;
  answer: string | null;
  error: string | null;
}

export interface StartedRun {
  runId: string;
  conversationId: string | null;
  /** Settles when the run reaches a final status; never rejects. */
  completion: Promise<RunOutcome>;
}

/** Emitted (EventEmitter2) when a run ends; `RUN_CANCELLED` additionally when it was cancelled (pending approvals expire). */
export const RUN_FINISHED = 'run.finished';
export const RUN_CANCELLED = 'run.cancelled';

/** What a run needs in memory while it executes; all of it can be rebuilt from the database. */
export interface LiveRun {
  run: AgentRun;
  agent: Agent;
  config: AgentConfig;
  settings: AgentHookSettings;
  registry: HookRegistry;
  provider: LlmProvider;
  abort: AbortController;
  /** The fencing token this driver claimed the run with: every write is conditional on it. */
  epoch: number;
  /** The runs whose streams also carry this run's events (DAG parents, delegating callers), nearest first. */
  ancestors: Array<{ id: string }>;
  emit: RunEventEmitter;
  /** True once this instance is stopping: whatever cannot finish now is left for the run's next driver. */
  isStopping: () => boolean;
}

const DEFAULT_INSTRUCTIONS = 'You are a helpful assistant.';
/** On shutdown, how long runs get to reach a point where they can stop cleanly before they are aborted. */
const SHUTDOWN_GRACE_MS = 5_000;
const SHUTDOWN_ABORT_WAIT_MS = 2_000;
/** A model reply cut off before its end is asked for again this many times in all, with a growing pause. */
const MODEL_ATTEMPTS = 3;
const MODEL_RETRY_BASE_MS = 250;
type Prepared = Pick<LiveRun, 'agent' | 'config' | 'settings' | 'registry'>;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
const newCallId = () => `call_${randomBytes(12).toString('hex')}`;
/** The confirmation waiters' NOTIFY channel (@warden/confirmations), named here to avoid a dependency cycle. */
const CONFIRMATION_NOTIFY_CHANNEL = 'confirmation_decided';

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
  // Set on the signal itself: Nest closes the confirmation waiter (rejecting approval waits) before this
  // module's destroy hook runs, and such a rejected wait must read as "stopping", never as a blocked call.
  private readonly onStopSignal = () => void (this.stopping = true);

  constructor(
    private readonly dataSource: DataSource,
    private readonly agents: AgentsService,
    private readonly hooks: HookResolver,
    private readonly llm: LlmProviderFactory,
    private readonly tools: ToolRegistry,
    private readonly toolCalls: ToolCallRunner,
    private readonly events: RunEventsService,
    private readonly bus: EventEmitter2,
    private readonly config: AppConfig,
  ) {}

  /**
   * Records the run and its `run` event, builds its hooks (a build error refuses the run: status `refused`,
   * `error` + `done` events, then a RunRefused 422 is thrown), and executes it detached from the caller.
   */
  async start(opts: StartRunOptions): Promise<StartedRun> {
    const { agent, config } = await this.agents.findWithConfig(opts.orgId, opts.agentId);
    const mode = opts.mode ?? 'react';
    const conversation = await this.conversationFor(opts);
    const messages: ChatMessage[] = [
      { role: 'system', content: agent.instructions || DEFAULT_INSTRUCTIONS },
      ...(conversation?.messages ?? []),
      { role: 'user', content: opts.message },
    ];
    const state: RunState = {
      phase: 'start', messages, turns: 0, pending_calls: [], ...(opts.eval ? { eval: opts.eval } : {}),
      ...(opts.confirmationOverride ? { confirmation_override: opts.confirmationOverride } : {}),
    };
    const run = await this.dataSource.getRepository(AgentRun).save({
      orgId: opts.orgId, agentId: agent.id, userId: opts.userId, conversationId: conversation?.id ?? null,
      parentRunId: opts.parentRunId ?? null, parentCallId: opts.parentCallId ?? null, surface: opts.surface, mode,
      status: 'running' as const, hooks: opts.eval ? 'bypassed' as const : 'active' as const, message: opts.message,
      answer: null, error: null, state, eventSeq: 0,
      // Leased from birth, so no recovery loop takes a run that is just starting.
      lockedBy: this.config.instanceId, leaseUntil: new Date(Date.now() + this.config.runLeaseMs), leaseEpoch: 1, finishedAt: null,
    });
    await this.events.append(run.id, 'run', {
      run_id: run.id, agent_id: agent.id, conversation_id: run.conversationId, surface: run.surface, mode,
      hooks: run.hooks, parent_run_id: run.parentRunId, parent_call_id: run.parentCallId,
    });
    const settings = withConfirmationOverride(hookSettingsOf(agent, config), opts.confirmationOverride);
    let registry: HookRegistry;
    try {
      registry = opts.eval ? this.hooks.resolveBypassed(settings) : await this.hooks.resolve({ hooksConfig: config.hooks, agent: settings });
    } catch (err) {
      const message = err instanceof HookBuildError ? err.message : `the agent's hooks cannot be built: ${(err as Error).message}`;
      await this.finish(run, 'refused', { error: message });
      throw err instanceof HookBuildError ? err : new DomainException(DomainErrorKind.RunRefused, message);
    }
    const completion = this.drive(run.id, { agent, config, settings, registry });
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
      await this.finish(run, 'refused', { error: message });
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
    const run = await this.dataSource.getRepository(AgentRun).findOneByOrFail({ id: runId });
    const won = await this.finish(run, 'cancelled', { error: 'the run was cancelled' });
    this.live.get(runId)?.abort.abort(new Error('run cancelled'));
    const children: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM agent_runs WHERE parent_run_id = $1 AND status IN ('running', 'waiting')`, [runId]);
    for (const child of children) await this.cancel(child.id);
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

  private drive(runId: string, prepared?: Prepared): Promise<RunOutcome> {
    // One `run` span per drive; a child run started inside a tool call nests under that call's span.
    const traced = inSpan('run', { 'warden.run_id': runId }, (span) => {
      if (span) void this.recordTraceId(runId);
      return this.execute(runId, prepared).then((o) => { span?.setAttribute('warden.run.status', o.status); return o; });
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

  /** Lets GET /api/runs/:id name the trace (only written when tracing is on). */
  private async recordTraceId(runId: string): Promise<void> {
    await this.dataSource.query(`UPDATE agent_runs SET trace_id = $2 WHERE id = $1`, [runId, activeTraceId()]).catch(() => undefined);
  }

  private async execute(runId: string, prepared?: Prepared): Promise<RunOutcome> {
    const epoch = await this.acquire(runId);
    // Another instance holds a live lease: it drives the run, not us.
    if (epoch === null) return this.outcomeOf(runId);
    let live: LiveRun | undefined;
    const renew = setInterval(() => void this.renew(runId, epoch, () => live).catch(() => undefined), Math.max(500, this.config.runLeaseMs / 3));
    let release = false;
    try {
      const repo = this.dataSource.getRepository(AgentRun);
      live = await this.liveRun(await repo.findOneByOrFail({ id: runId }), epoch, prepared);
      this.live.set(runId, live);
      if (!prepared) await this.toolCalls.settleInterrupted(live);
      for (;;) {
        if (this.stopping) throw new RunSuspendedError('the server is stopping');
        const run = await repo.findOneByOrFail({ id: runId });
        if (!ACTIVE_RUN_STATUSES.includes(run.status) || run.leaseEpoch !== epoch) break;
        live.run = run;
        const next = await this.step(live, run.state);
        if (next === 'finished') break;
        if (!(await this.saveState(live, next))) break;
      }
    } catch (err) {
      release = await this.stopOnError(runId, epoch, live, err);
    } finally {
      clearInterval(renew);
      if (release) await this.releaseLease(runId, epoch).catch(() => undefined);
    }
    return this.outcomeOf(runId);
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
    await this.finish(run, 'failed', { error: reason }, { epoch }).catch((e: Error) =>
      this.logger.warn({ runId, reason: e.message }, 'could not record the failure; the run is left for recovery'));
    return false;
  }

  private async outcomeOf(runId: string): Promise<RunOutcome> {
    const final = await this.dataSource.getRepository(AgentRun).findOneByOrFail({ id: runId });
    return { runId, status: final.status, answer: final.answer, error: final.error };
  }

  /**
   * Claims the run unless another instance holds a live lease, and returns the new fencing epoch (null when another
   * instance drives it). Every claim increments the epoch, so a previous holder's writes fail from now on.
   */
  private async acquire(runId: string): Promise<number | null> {
    const [rows]: [Array<{ lease_epoch: number }>, number] = await this.dataSource.query(
      `UPDATE agent_runs SET locked_by = $2, lease_until = now() + make_interval(secs => $3), lease_epoch = lease_epoch + 1
       WHERE id = $1 AND status IN ('running', 'waiting')
         AND (locked_by = $2 OR locked_by IS NULL OR lease_until IS NULL OR lease_until < now()) RETURNING lease_epoch`,
      [runId, this.config.instanceId, this.config.runLeaseMs / 1000],
    );
    return rows[0]?.lease_epoch ?? null;
  }

  /** Extends the lease; when the run is no longer ours at this epoch (taken over, or ended elsewhere), stops its drive here. */
  private async renew(runId: string, epoch: number, live: () => LiveRun | undefined): Promise<void> {
    if (await this.lease(runId, epoch)) return;
    const [row]: Array<{ status: RunStatus; locked_by: string | null; lease_epoch: number }> = await this.dataSource.query(
      `SELECT status, locked_by, lease_epoch FROM agent_runs WHERE id = $1`, [runId]);
    if (!row || (row.lease_epoch === epoch && ACTIVE_RUN_STATUSES.includes(row.status))) return;
    this.leaseLost(live(), runId, ACTIVE_RUN_STATUSES.includes(row.status) ? `taken over by ${row.locked_by ?? 'recovery'}` : `the run ended ${row.status} elsewhere`);
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

  private async releaseLease(runId: string, epoch: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE agent_runs SET lease_until = now() WHERE id = $1 AND lease_epoch = $2 AND status IN ('running', 'waiting')`, [runId, epoch]);
  }

  private async liveRun(run: AgentRun, epoch: number, prepared?: Prepared): Promise<LiveRun> {
    const base = prepared ?? (run.state.tool_run ? await this.prepareToolRun(run.state.tool_run) : undefined) ?? await (async () => {
      const { agent, config } = await this.agents.findWithConfig(run.orgId, run.agentId);
      const settings = withConfirmationOverride(hookSettingsOf(agent, config), run.state.confirmation_override);
      const registry = run.hooks === 'bypassed' ? this.hooks.resolveBypassed(settings) : await this.hooks.resolve({ hooksConfig: config.hooks, agent: settings });
      return { agent, config, settings, registry };
    })();
    const abort = new AbortController();
    const ancestors = await this.ancestorsOf(run);
    annotateSpan({ 'warden.surface': run.surface, 'warden.agent_id': run.agentId, 'warden.org_id': run.orgId, 'warden.mode': run.mode });
    const live: LiveRun = {
      ...base, run, abort, epoch, ancestors, provider: this.llm.create(base.config.model), emit: async () => undefined, isStopping: () => this.stopping,
    };
    live.emit = (type, data) => this.emitEvent(live, ancestors, type, data);
    return live;
  }

  /** One step of the state machine; returns the next state, or 'finished' once the run has its final status. */
  private async step(live: LiveRun, state: RunState): Promise<RunState | 'finished'> {
    switch (state.phase) {
      case 'start': return this.sessionStart(live, state);
      case 'llm': return this.modelTurn(live, state);
      case 'tools': return this.toolTurn(live, state);
      case 'plan': return this.plan(live, state);
      case 'steps': return this.runSteps(live, state);
      case 'synthesis': return this.synthesize(live, state);
    }
  }

  private async sessionStart(live: LiveRun, state: RunState): Promise<RunState> {
    const { run } = live;
    const { additionalContext } = await live.registry.runSessionStart({
      toolName: '', toolArgs: {}, agentId: run.agentId, userId: run.userId, orgId: run.orgId, runId: run.id, surface: run.surface,
      metadata: { agent: live.settings, conversationId: run.conversationId ?? undefined, parentRunId: run.parentRunId ?? undefined },
      emit: live.emit, signal: live.abort.signal,
    });
    const messages = [...state.messages];
    if (additionalContext.length > 0 && messages[0]?.role === 'system') {
      messages[0] = { role: 'system', content: [messages[0].content, ...additionalContext].join('\n\n') };
    }
    return { ...state, messages, phase: run.mode === 'dag' ? 'plan' : 'llm' };
  }

  private async modelTurn(live: LiveRun, state: RunState): Promise<RunState | 'finished'> {
    const { run, config } = live;
    if (state.turns >= config.maxIterations) {
      await this.finish(run, 'failed', { error: `the agent reached max_iterations (${config.maxIterations}) without a final answer` }, { epoch: live.epoch });
      return 'finished';
    }
    const tools = await this.tools.forAgent(run.orgId, config.tools);
    const turn = await this.completeWithRetry(live, { runId: run.id, turn: state.turns, messages: state.messages, tools: tools.map((t) => t.spec), signal: live.abort.signal });
    if (turn.toolCalls.length === 0) {
      // The answer and the run's end commit together: a crash cannot leave an answered run in its model phase.
      const answered: RunState = { ...state, turns: state.turns + 1, messages: [...state.messages, { role: 'assistant', content: turn.content }] };
      await this.finish(run, 'completed', { answer: turn.content }, { epoch: live.epoch, state: answered });
      return 'finished';
    }
    // Our own ids: unique across runs, so each doubles as the connector's Idempotency-Key.
    const calls = turn.toolCalls.map((c) => ({ call_id: newCallId(), tool: c.name, args: c.args, raw: c.rawArguments }));
    const next: RunState = {
      ...state,
      phase: 'tools',
      turns: state.turns + 1,
      messages: [...state.messages, {
        role: 'assistant', content: turn.content || null,
        tool_calls: calls.map((c) => ({ id: c.call_id, type: 'function' as const, function: { name: c.tool, arguments: c.raw || '{}' } })),
      }],
      pending_calls: calls.map(({ call_id, tool, args }) => ({ call_id, tool, args })),
    };
    // The turn's output (assistant message, call rows, tool_call events) commits in one transaction before any tool
    // runs: a resumed run continues with these calls and never asks the model again for this turn.
    const stored = await this.dataSource.transaction(async (m) => {
      if (!(await this.saveState(live, next, m))) return false;
      await this.toolCalls.record(run.id, next.pending_calls, m);
      for (const c of next.pending_calls) await this.appendToStreams(live, 'tool_call', { call_id: c.call_id, tool: c.tool, args: c.args }, m);
      return true;
    });
    if (!stored) return 'finished';
    for (const id of [run.id, ...live.ancestors.map((a) => a.id)]) this.events.wake(id);
    return next;
  }

  private async toolTurn(live: LiveRun, state: RunState): Promise<RunState | 'finished'> {
    const tools = await this.tools.forAgent(live.run.orgId, live.config.tools);
    await Promise.all(state.pending_calls.map((call) =>
      inSpan(`tool ${call.tool}`, { 'warden.tool': call.tool, 'warden.call_id': call.call_id }, () => this.toolCalls.run(live, call, tools, state.pending_calls))));
    const observations = await this.toolCalls.observations(live.run.id, state.pending_calls.map((c) => c.call_id));
    if (state.tool_run) {
      await this.finish(live.run, 'completed', { answer: observations.get(state.pending_calls[0].call_id) ?? '' }, { epoch: live.epoch });
      return 'finished';
    }
    return {
      ...state,
      phase: 'llm',
      pending_calls: [],
      messages: [...state.messages, ...state.pending_calls.map((c): ChatMessage => ({ role: 'tool', tool_call_id: c.call_id, content: observations.get(c.call_id) ?? '' }))],
    };
  }

  private async plan(live: LiveRun, state: RunState): Promise<RunState | 'finished'> {
    const { run } = live;
    const tools = await this.tools.forAgent(run.orgId, live.config.tools);
    const planning = `${PLANNING_PROMPT}\nTools the steps can use: ${tools.map((t) => t.spec.name).join(', ') || 'none'}.`;
    const messages: ChatMessage[] = [state.messages[0], { role: 'system', content: planning }, ...state.messages.slice(1)];
    const turn = await live.provider.complete({ runId: run.id, turn: state.turns, messages, tools: [], signal: live.abort.signal });
    const attempts = (state.plan_attempts ?? 0) + 1;
    const { steps, problems } = parsePlan(turn.content);
    if (!steps) {
      if (attempts >= 2) {
        await this.finish(run, 'failed', { error: `the model's plan is invalid: ${problems.join('; ')}` }, { epoch: live.epoch });
        return 'finished';
      }
      await live.emit('plan_rejected', { problems });
      return {
        ...state, turns: state.turns + 1, plan_attempts: attempts,
        messages: [...state.messages, { role: 'assistant', content: turn.content },
          { role: 'user', content: `Your plan cannot be used: ${problems.join('; ')}. Reply with a corrected plan, as JSON only.` }],
      };
    }
    await live.emit('plan', { steps });
    return {
      ...state, phase: 'steps', turns: state.turns + 1, plan_attempts: attempts, plan: steps,
      messages: [...state.messages, { role: 'assistant', content: turn.content }],
      steps: Object.fromEntries(steps.map((s) => [s.id, { status: 'pending' as const }])),
    };
  }

  /** Starts every step whose dependencies are done (concurrently, each a ReAct sub-run with its own hooks), waits for one to end. */
  private async runSteps(live: LiveRun, state: RunState): Promise<RunState | 'finished'> {
    const { run } = live;
    const plan = state.plan ?? [];
    const steps = { ...(state.steps ?? {}) };
    const failed = plan.find((s) => steps[s.id]?.status === 'failed');
    if (failed) {
      await this.finish(run, 'failed', { error: `step "${failed.id}" failed: ${steps[failed.id].error ?? 'unknown error'}` }, { epoch: live.epoch });
      return 'finished';
    }
    if (plan.every((s) => steps[s.id]?.status === 'completed')) return { ...state, phase: 'synthesis' };
    const ready = plan.filter((s) => steps[s.id]?.status === 'pending' && s.depends_on.every((d) => steps[d]?.status === 'completed'));
    const started = await Promise.all(ready.map(async (step) => {
      const context = step.depends_on.map((d) => `Result of step "${d}": ${steps[d].answer ?? ''}`).join('\n');
      const message = `${step.task}${context ? `\n\n${context}` : ''}\n\n(This is one step of a larger request: ${run.message})`;
      try {
        const child = await this.start({
          orgId: run.orgId, userId: run.userId, agentId: run.agentId, message, surface: 'dag', mode: 'react',
          parentRunId: run.id, parentCallId: `step:${step.id}`,
          ...(run.hooks === 'bypassed' ? { eval: run.state.eval ?? { reads: 'live' } } : {}),
        });
        return [step.id, { status: 'running' as const, run_id: child.runId }] as const;
      } catch (err) {
        return [step.id, { status: 'failed' as const, error: (err as Error).message }] as const;
      }
    }));
    for (const [id, progress] of started) steps[id] = progress;
    if (started.length > 0 && !(await this.saveState(live, { ...state, steps }))) return 'finished';
    const running = plan.filter((s) => steps[s.id]?.status === 'running');
    if (running.length === 0) return { ...state, steps };
    const outcome = await Promise.race(running.map((s) => this.waitForRun(steps[s.id].run_id!, live.abort.signal).then((o) => ({ id: s.id, o }))));
    steps[outcome.id] = outcome.o.status === 'completed'
      ? { status: 'completed', run_id: outcome.o.runId, answer: outcome.o.answer ?? '' }
      : { status: 'failed', run_id: outcome.o.runId, error: outcome.o.error ?? `ended ${outcome.o.status}` };
    return { ...state, steps };
  }

  private async synthesize(live: LiveRun, state: RunState): Promise<RunState | 'finished'> {
    const { run } = live;
    const results = (state.plan ?? []).map((s) => `- ${s.id} (${s.task}): ${state.steps?.[s.id]?.answer ?? ''}`).join('\n');
    const messages: ChatMessage[] = [
      state.messages[0],
      { role: 'user', content: `${run.message}\n\nThe plan's steps are done. Their results:\n${results}\n\nWrite the final answer to the request.` },
    ];
    const turn = await this.completeWithRetry(live, { runId: run.id, turn: state.turns, messages, tools: [], signal: live.abort.signal });
    await this.finish(run, 'completed', { answer: turn.content }, { epoch: live.epoch, state: { ...state, turns: state.turns + 1 } });
    return 'finished';
  }

  /**
   * A model call, asked again (with a growing pause, up to MODEL_ATTEMPTS in all) when its reply was cut off before
   * its end: nothing of an unfinished turn is used. Each retry is announced with a `model_retry` event.
   */
  private async completeWithRetry(live: LiveRun, request: LlmRequest): Promise<LlmTurn> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.completeStreaming(live, request);
      } catch (err) {
        if (!(err instanceof LlmError) || !err.retryable || live.abort.signal.aborted) throw err;
        if (attempt >= MODEL_ATTEMPTS) throw new LlmError(`the model's reply was incomplete ${attempt} times: ${err.message}`);
        const delayMs = MODEL_RETRY_BASE_MS * 2 ** (attempt - 1);
        await live.emit('model_retry', { attempt, message: err.message, retry_in_ms: delayMs });
        await sleep(delayMs);
      }
    }
  }

  /** A model call whose text reaches the stream as it arrives (`answer_delta` events), all written before it returns. */
  private async completeStreaming(live: LiveRun, request: LlmRequest): Promise<LlmTurn> {
    const deltas = new AnswerDeltaStream(live.emit);
    try {
      const model = live.config.model as { provider?: string; model?: string };
      return await inSpan('model call', { 'warden.run_id': request.runId, 'warden.model.provider': model.provider ?? '', 'warden.model': model.model ?? '', 'warden.turn': request.turn },
        () => live.provider.complete({ ...request, onContent: deltas.push }));
    } finally {
      await deltas.close();
    }
  }

  /**
   * Writes the run's new state (and renews its lease) while this driver holds it at its epoch; false when the run
   * already ended (e.g. cancelled) or another driver claimed it since (which then owns the state).
   */
  private async saveState(live: LiveRun, state: RunState, m?: EntityManager): Promise<boolean> {
    const [, affected] = await (m ?? this.dataSource).query(
      `UPDATE agent_runs SET state = $2, updated_at = now(), lease_until = now() + make_interval(secs => $4)
       WHERE id = $1 AND status IN ('running', 'waiting') AND lease_epoch = $3`,
      [live.run.id, JSON.stringify(state), live.epoch, this.config.runLeaseMs / 1000],
    );
    return affected > 0;
  }

  /** Extends the lease held at `epoch`; false when the run ended or was claimed by another driver since. */
  private async lease(runId: string, epoch: number): Promise<boolean> {
    const [, affected] = await this.dataSource.query(
      `UPDATE agent_runs SET lease_until = now() + make_interval(secs => $3) WHERE id = $1 AND status IN ('running', 'waiting') AND lease_epoch = $2`,
      [runId, epoch, this.config.runLeaseMs / 1000],
    );
    return affected > 0;
  }

  /**
   * Moves an active run to its final status and writes its closing events (`error` / `answer`, then `done`), in one
   * transaction (with the final `state` when given, and, for a cancel, the expiry of its pending confirmations).
   * Only the first caller wins, so `done` is written exactly once whoever ends the run (driver or cancel); a driver
   * passes its `epoch` and wins only while it still holds the run.
   */
  private async finish(
    run: AgentRun, status: Exclude<RunStatus, 'running' | 'waiting'>, result: { answer?: string; error?: string },
    fence: { epoch?: number; state?: RunState } = {},
  ): Promise<boolean> {
    const ancestors = await this.ancestorsOf(run);
    const won = await this.dataSource.transaction(async (m) => {
      const [rows]: [unknown[], number] = await m.query(
        `UPDATE agent_runs SET status = $2, answer = $3, error = $4, finished_at = now(), updated_at = now(), locked_by = NULL, lease_until = NULL,
           state = COALESCE($6::jsonb, state)
         WHERE id = $1 AND status IN ('running', 'waiting') AND ($5::int IS NULL OR lease_epoch = $5) RETURNING id`,
        [run.id, status, result.answer ?? null, result.error ?? null, fence.epoch ?? null, fence.state ? JSON.stringify(fence.state) : null],
      );
      if (rows.length === 0) return false;
      if (status === 'cancelled') await expirePendingConfirmations(m, run.id);
      // The conversation has the exchange before the client hears `done`: its next message must see this one.
      if (status === 'completed' && run.conversationId) {
        await m.query(
          `UPDATE conversations SET messages = messages || $2::jsonb, updated_at = now() WHERE id = $1`,
          [run.conversationId, JSON.stringify([{ role: 'user', content: run.message }, { role: 'assistant', content: result.answer ?? '' }])],
        );
      }
      const append = (type: string, data: Record<string, unknown>) => this.appendWithAncestors(run, ancestors, type, data, m);
      if (result.error && status !== 'cancelled') await append('error', { message: result.error });
      if (status === 'completed') await append('answer', { content: result.answer ?? '' });
      await append('done', { run_id: run.id, status });
      return true;
    });
    if (!won) return false;
    for (const id of [run.id, ...ancestors.map((a) => a.id)]) this.events.wake(id);
    this.bus.emit(RUN_FINISHED, { runId: run.id, orgId: run.orgId, status, surface: run.surface });
    return true;
  }

  /**
   * The `emit` of a live run: persists the event on the run — only while this driver holds it at its epoch (else the
   * drive stops with LeaseLostError, writing nothing) — then on each ancestor run (so a DAG step's or a delegate's
   * story appears in the caller's stream, marked with the child's `run_id` and `parent_call_id`). A pending
   * confirmation makes the run (and its ancestors) `waiting` until it is resolved.
   */
  private async emitEvent(live: LiveRun, ancestors: Array<{ id: string }>, type: string, data: Record<string, unknown>): Promise<void> {
    const { run } = live;
    const payload = await this.appendOwn(live, type, data);
    for (const a of ancestors) await this.events.append(a.id, type, { ...payload, parent_call_id: payload.parent_call_id ?? run.parentCallId });
    if (type === 'confirmation_pending' || type === 'confirmation_resolved') {
      const [from, to] = type === 'confirmation_pending' ? ['running', 'waiting'] : ['waiting', 'running'];
      await this.dataSource.query(`UPDATE agent_runs SET status = $2, updated_at = now() WHERE id = ANY($1) AND status = $3 AND (id <> $4 OR lease_epoch = $5)`,
        [[run.id, ...ancestors.map((a) => a.id)], to, from, run.id, live.epoch]);
    }
  }

  /** Appends an event of the live run, fenced by its epoch; throws LeaseLostError (and stops the drive) when not held. */
  private async appendOwn(live: LiveRun, type: string, data: Record<string, unknown>, m?: EntityManager): Promise<Record<string, unknown>> {
    const payload: Record<string, unknown> = { run_id: live.run.id, surface: live.run.surface, ...data };
    const seq = await this.events.appendIf(live.run.id, type, payload, { epoch: live.epoch, runner: m });
    if (seq === null) throw this.leaseLost(live, live.run.id, 'a fenced write was refused');
    return payload;
  }

  /** An event of the live run (fenced) and, like every event of a child run, of its ancestors' streams, in `m`. */
  private async appendToStreams(live: LiveRun, type: string, data: Record<string, unknown>, m: EntityManager): Promise<void> {
    const payload = await this.appendOwn(live, type, data, m);
    for (const a of live.ancestors) {
      await this.events.appendIf(a.id, type, { ...payload, parent_call_id: payload.parent_call_id ?? live.run.parentCallId }, { runner: m });
    }
  }

  /** A closing event (written by whoever ends the run, in its transaction) on the run and its ancestors. */
  private async appendWithAncestors(run: AgentRun, ancestors: Array<{ id: string }>, type: string, data: Record<string, unknown>, m: EntityManager): Promise<void> {
    const payload: Record<string, unknown> = { run_id: run.id, surface: run.surface, ...data };
    await this.events.appendIf(run.id, type, payload, { runner: m });
    if (type === 'done') return;
    for (const a of ancestors) await this.events.appendIf(a.id, type, { ...payload, parent_call_id: payload.parent_call_id ?? run.parentCallId }, { runner: m });
  }

  private async ancestorsOf(run: AgentRun): Promise<Array<{ id: string }>> {
    if (!run.parentRunId) return [];
    return this.dataSource.query(
      `WITH RECURSIVE chain(id, parent_run_id, depth) AS (
         SELECT id, parent_run_id, 1 FROM agent_runs WHERE id = $1
         UNION ALL SELECT r.id, r.parent_run_id, c.depth + 1 FROM agent_runs r JOIN chain c ON r.id = c.parent_run_id WHERE c.depth < 20)
       SELECT id FROM chain ORDER BY depth`,
      [run.parentRunId],
    );
  }

  private async conversationFor(opts: StartRunOptions): Promise<Conversation | null> {
    const repo = this.dataSource.getRepository(Conversation);
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

/**
 * A cancelled run's pending approvals expire with it (same transaction); the NOTIFY wakes their waiters on every
 * instance, and a decision arriving later finds the row expired (409).
 */
async function expirePendingConfirmations(m: EntityManager, runId: string): Promise<void> {
  await m.query(
    `WITH expired AS (
       UPDATE confirmation_requests SET status = 'expired', responded_at = now(), responded_by_name = 'system',
              reason = 'the run was cancelled', updated_at = now()
        WHERE run_id = $1 AND status = 'pending' RETURNING id)
     SELECT pg_notify('${CONFIRMATION_NOTIFY_CHANNEL}', id::text) FROM expired`,
    [runId],
  );
}
