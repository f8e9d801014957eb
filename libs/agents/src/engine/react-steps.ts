import { Injectable } from '@nestjs/common';
import { inSpan, traceHeaders, tracingEnabled } from '@warden/common';
import { SqlParams } from '@warden/database';
import { randomBytes } from 'node:crypto';
import { LlmError, type ChatMessage, type LlmRequest, type LlmTurn } from '../llm/llm-provider.js';
import type { ModelTurnState, RunState, StartState, ToolTurnState } from '../runs/run.entity.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { LlmProviderFactory } from '../llm/llm-provider.factory.js';
import { AnswerDeltaStream } from './answer-delta-stream.js';
import { answerStreams, beforeModelCall, stopEnding, stopWith, submitPrompt } from './lifecycle-hooks.js';
import type { LiveRun, StepOutcome } from './live-run.js';
import { RunStore } from './run-store.js';
import { ToolCallRunner } from './tool-call-runner.js';

/** A model reply cut off before its end is asked for again this many times in all, with a growing pause. */
const MODEL_ATTEMPTS = 3;
const MODEL_RETRY_BASE_MS = 250;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
const newCallId = () => `call_${randomBytes(12).toString('hex')}`;

/**
 * The ReAct loop's steps: SessionStart hooks, a model turn (whose output commits before any tool runs), and a turn's
 * tool calls (each through the hook pipeline and the gate, see ToolCallRunner). Each returns the run's next state.
 */
@Injectable()
export class ReactSteps {
  constructor(
    private readonly store: RunStore,
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
      await this.store.finishLive(live, 'refused', { error: prompt.blocked });
      return 'finished';
    }
    // Carried: the first model turn (or the plan) saves it with its output; a crash before that runs this step again.
    return { carry: { ...state, messages: prompt.messages, phase: run.mode === 'dag' ? 'plan' : 'llm' } };
  }

  async modelTurn(live: LiveRun, state: ModelTurnState): Promise<StepOutcome> {
    const { run, config } = live;
    if (state.turns >= config.maxIterations) {
      await this.store.finishLive(live, 'failed', {
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
        await this.store.finishLive(live, ending.status, { error: ending.error });
        return 'finished';
      }
      // The answer and the run's end commit together: a crash cannot leave an answered run in its model phase.
      const answered: RunState = {
        ...state,
        turns: state.turns + 1,
        messages: [...state.messages, { role: 'assistant', content: stop.answer }],
      };
      await this.store.finishLive(live, 'completed', { answer: stop.answer, usage: turn.usage }, answered);
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
      // Nothing outside has been acted on before it, so a crash before it only redoes this turn.
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
      await this.store.finishLive(live, 'completed', {
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

  /**
   * A model call, asked again (with a growing pause, up to MODEL_ATTEMPTS in all) when its reply was cut off before
   * its end: nothing of an unfinished turn is used. Each retry is announced with a `model_retry` event.
   */
  async completeWithRetry(live: LiveRun, request: LlmRequest): Promise<LlmTurn> {
    const provider = await beforeModelCall(live, request, this.llm);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.completeStreaming(live, request, provider);
      } catch (err) {
        if (!(err instanceof LlmError) || !err.retryable || live.abort.signal.aborted) throw err;
        if (attempt >= MODEL_ATTEMPTS)
          throw new LlmError(`the model's reply was incomplete ${attempt} times: ${err.message}`);
        const delayMs = MODEL_RETRY_BASE_MS * 2 ** (attempt - 1);
        await live.emit('model_retry', { attempt, message: err.message, retry_in_ms: delayMs });
        await sleep(delayMs);
      }
    }
  }

  /** A model call whose text reaches the stream as it arrives (`answer_delta` events), all written before it returns. */
  private async completeStreaming(live: LiveRun, request: LlmRequest, provider = live.provider): Promise<LlmTurn> {
    const deltas = new AnswerDeltaStream(live.emit, (content) =>
      live.deferred.push({ type: 'answer_delta', data: { content } }),
    );
    try {
      const model = live.config.model as { provider?: string; model?: string };
      return await inSpan(
        'model call',
        {
          'warden.run_id': request.runId,
          'warden.model.provider': model.provider ?? '',
          'warden.model': model.model ?? '',
          'warden.turn': request.turn,
        },
        () => provider.complete({ ...request, onContent: answerStreams(live) ? deltas.push : undefined }),
      );
    } finally {
      await deltas.close();
    }
  }
}

/** The model turn after a tool turn: without its calls, its parked calls and the trace they parked in (all settled). */
function nextModelTurn(state: ToolTurnState): ModelTurnState {
  const { pending_calls: _calls, parked_calls: _parked, trace: _trace, ...rest } = state;
  return { ...rest, phase: 'llm' };
}
