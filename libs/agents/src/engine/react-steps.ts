import { Injectable } from '@nestjs/common';
import { inSpan, traceHeaders, tracingEnabled } from '@warden/common';
import { SqlParams } from '@warden/database';
import { randomBytes } from 'node:crypto';
import type { ChatMessage, LlmRequest, LlmTurn } from '../llm/llm-provider.js';
import type { ModelTurnState, RunState, StartState, ToolTurnState } from '../runs/run.entity.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { LlmProviderFactory } from '../llm/llm-provider.factory.js';
import { stopEnding, stopWith, submitPrompt } from './lifecycle-hooks.js';
import { completeWithRetry } from './model-call.js';
import type { LiveRun, StepOutcome } from './live-run.js';
import { RunFinisher } from './run-finisher.js';
import { RunStore } from './run-store.js';
import { ToolCallRunner } from './tool-call-runner.js';

const newCallId = () => `call_${randomBytes(12).toString('hex')}`;

/**
 * The ReAct loop's steps: SessionStart hooks, a model turn (whose output commits before any tool runs), and a turn's
 * tool calls (each through the hook pipeline and the gate, see ToolCallRunner). Each returns the run's next state.
 */
@Injectable()
export class ReactSteps {
  constructor(
    private readonly store: RunStore,
    private readonly finisher: RunFinisher,
    private readonly tools: ToolRegistry,
    private readonly toolCalls: ToolCallRunner,
    private readonly llm: LlmProviderFactory,
  ) {}

  async sessionStart(live: LiveRun, state: StartState): Promise<StepOutcome> {
    const { run } = live;
    const { additionalContext } = await live.registry.runSessionStart({
      toolName: '',
      toolArgs: {},
      agentId: run.agentId,
      userId: run.userId,
      orgId: run.orgId,
      runId: run.id,
      surface: run.surface,
      metadata: {
        agent: live.settings,
        conversationId: run.conversationId ?? undefined,
        parentRunId: run.parentRunId ?? undefined,
      },
      emit: live.emit,
      signal: live.abort.signal,
    });
    const messages = [...state.messages];
    if (additionalContext.length > 0 && messages[0]?.role === 'system') {
      messages[0] = { role: 'system', content: [messages[0].content, ...additionalContext].join('\n\n') };
    }
    const prompt = await submitPrompt(live, messages, this.store.dataSource);
    if ('blocked' in prompt) {
      await this.finisher.finishLive(live, 'refused', { error: prompt.blocked });
      return 'finished';
    }
    // Carried: the first model turn (or the plan) saves it with its output; a crash before that runs this step again.
    return { carry: { ...state, messages: prompt.messages, phase: run.mode === 'dag' ? 'plan' : 'llm' } };
  }

  async modelTurn(live: LiveRun, state: ModelTurnState): Promise<StepOutcome> {
    const { run, config } = live;
    if (state.turns >= config.maxIterations) {
      await this.finisher.finishLive(live, 'failed', {
        error: `the agent reached max_iterations (${config.maxIterations}) without a final answer`,
      });
      return 'finished';
    }
    const tools = await this.tools.forAgent(run.orgId, config.tools);
    live.catalog = tools; // the same catalog serves this turn's tool calls: built once per turn
    const turn = await this.completeWithRetry(live, {
      runId: run.id,
      turn: state.turns,
      messages: state.messages,
      tools: tools.map((t) => t.spec),
      signal: live.abort.signal,
    });
    if (turn.toolCalls.length === 0) {
      const stop = await stopWith(live, state, turn.content, { canContinue: true });
      if ('continueWith' in stop) {
        // The blocked answer reaches nobody: not the stored run, not the conversation, not the model's next turn.
        return {
          ...state,
          turns: state.turns + 1,
          stop_continuations: (state.stop_continuations ?? 0) + 1,
          messages: [
            ...state.messages,
            { role: 'assistant', content: stop.withheld },
            { role: 'user', content: stop.continueWith },
          ],
        };
      }
      if (!('answer' in stop)) {
        const ending = stopEnding(stop);
        await this.finisher.finishLive(live, ending.status, { error: ending.error });
        return 'finished';
      }
      // The answer and the run's end commit together: a crash cannot leave an answered run in its model phase.
      const answered: RunState = {
        ...state,
        turns: state.turns + 1,
        messages: [...state.messages, { role: 'assistant', content: stop.answer }],
      };
      await this.finisher.finishLive(live, 'completed', { answer: stop.answer, usage: turn.usage }, answered);
      return 'finished';
    }
    // Our own ids: unique across runs, so each doubles as the connector's Idempotency-Key.
    const calls = turn.toolCalls.map((c) => ({
      call_id: newCallId(),
      tool: c.name,
      args: c.args,
      raw: c.rawArguments,
    }));
    const next: RunState = {
      ...state,
      phase: 'tools',
      turns: state.turns + 1,
      messages: [
        ...state.messages,
        {
          role: 'assistant',
          content: turn.content || null,
          tool_calls: calls.map((c) => ({
            id: c.call_id,
            type: 'function' as const,
            function: { name: c.tool, arguments: c.raw || '{}' },
          })),
        },
      ],
      pending_calls: calls.map(({ call_id, tool, args }) => ({ call_id, tool, args })),
    };
    // The turn's output (assistant message, call rows, tool_call events) commits before any tool acts: a resumed run
    // continues with these calls. With several calls (or ancestors) it commits now, before their hooks run.
    const events = next.pending_calls.map((c, i) => ({
      type: 'tool_call' as const,
      data: { call_id: c.call_id, tool: c.tool, args: c.args, ...(i === 0 && turn.usage ? { usage: turn.usage } : {}) },
    }));
    const record = (p: SqlParams) => this.toolCalls.recordWrite(p, run.id, next.pending_calls);
    if (next.pending_calls.length === 1 && live.ancestors.length === 0) {
      // One call, no ancestor stream: the run's next write carries the turn — the call's execution mark when its
      // hooks let it run (one statement less), else the gate's event or the call's outcome (RunStore.writeRun).
      // Nothing has been sent before it, so a crash before it only redoes this turn (an approval the gate asked for
      // in between expires when the run resumes: ToolCallRecovery).
      live.deferred.push(...events);
      live.turn = { state: next, record };
      for (const c of next.pending_calls) live.fresh.add(c.call_id);
      return { carry: next };
    }
    const p = new SqlParams();
    const stored = await this.store.writeRun(
      live,
      events,
      { set: this.store.stateSets(p, next), ctes: [record(p)], redoable: true },
      p,
    );
    if (!stored.held) return 'finished';
    for (const c of next.pending_calls) live.fresh.add(c.call_id);
    return { saved: next };
  }

  async toolTurn(live: LiveRun, state: ToolTurnState): Promise<StepOutcome> {
    const tools = live.catalog ?? (await this.tools.forAgent(live.run.orgId, live.config.tools));
    live.catalog = undefined;
    const parkedAt = new Map(state.parked_calls?.map((p) => [p.call_id, p]));
    const results = await Promise.all(
      state.pending_calls.map((call) =>
        inSpan(`tool ${call.tool}`, { 'warden.tool': call.tool, 'warden.call_id': call.call_id }, () =>
          this.toolCalls.run(live, call, tools, state.pending_calls, parkedAt.get(call.call_id)),
        ),
      ),
    );
    // Every other call of the turn has its outcome: the run parks until a parked call's decision claims it again.
    const parked = results.filter((p) => p !== undefined);
    if (parked.length > 0) {
      live.catalog = tools; // the turn resumes with it, if this process resumes it
      return { park: { ...state, parked_calls: parked, ...(tracingEnabled() ? { trace: traceHeaders() } : {}) } };
    }
    const observations = await this.toolCalls.observations(
      live,
      state.pending_calls.map((c) => c.call_id),
    );
    live.observed.clear();
    if (state.tool_run) {
      await this.finisher.finishLive(live, 'completed', {
        answer: observations.get(state.pending_calls[0].call_id) ?? '',
      });
      return 'finished';
    }
    // Carried to the model turn, which saves it with its output: redoing this step finds every call settled.
    return {
      carry: {
        ...nextModelTurn(state),
        messages: [
          ...state.messages,
          ...state.pending_calls.map((c): ChatMessage => ({
            role: 'tool',
            tool_call_id: c.call_id,
            content: observations.get(c.call_id) ?? '',
          })),
        ],
      },
    };
  }

  /** A model call through the run's PreModelCall hooks, asked again when its reply was cut off (model-call.ts). */
  completeWithRetry(live: LiveRun, request: LlmRequest): Promise<LlmTurn> {
    return completeWithRetry(live, request, this.llm);
  }
}

/** The model turn after a tool turn: without its calls, its parked calls and the trace they parked in (all settled). */
function nextModelTurn(state: ToolTurnState): ModelTurnState {
  const { pending_calls: _calls, parked_calls: _parked, trace: _trace, ...rest } = state;
  return { ...rest, phase: 'llm' };
}
