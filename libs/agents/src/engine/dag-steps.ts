import { Injectable } from '@nestjs/common';
import type { ChatMessage } from '../llm/llm-provider.js';
import type { PlanState, PlanStep, StepProgress, StepsState } from '../runs/run.entity.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { LlmProviderFactory } from '../llm/llm-provider.factory.js';
import { PLANNING_PROMPT, parsePlan } from './dag-plan.js';
import { beforeModelCall, stopEnding, stopWith } from './lifecycle-hooks.js';
import type { LiveRun, RunOutcome, StartedRun, StartRunOptions } from './live-run.js';
import { ReactSteps } from './react-steps.js';
import { RunFinisher } from './run-finisher.js';
import { RunStore } from './run-store.js';

/** How a DAG run starts its steps (each a ReAct child run) and waits for them: the executor. */
export interface ChildRuns {
  start(opts: StartRunOptions): Promise<StartedRun>;
  waitForRun(runId: string, signal?: AbortSignal): Promise<RunOutcome>;
}

/**
 * The DAG mode's steps: the model writes a plan (validated, asked once more when invalid), the plan's steps run as
 * child runs as soon as their dependencies are done, and a last model call writes the answer from their results.
 */
@Injectable()
export class DagSteps {
  constructor(
    private readonly store: RunStore,
    private readonly finisher: RunFinisher,
    private readonly tools: ToolRegistry,
    private readonly react: ReactSteps,
    private readonly llm: LlmProviderFactory,
  ) {}

  async plan(live: LiveRun, state: PlanState): Promise<PlanState | StepsState | 'finished'> {
    const { run } = live;
    const tools = await this.tools.forAgent(run.orgId, live.config.tools);
    const toolNames = tools.map((t) => t.spec.name).join(', ') || 'none';
    const planning = `${PLANNING_PROMPT}\nTools the steps can use: ${toolNames}.`;
    const messages: ChatMessage[] = [
      state.messages[0],
      { role: 'system', content: planning },
      ...state.messages.slice(1),
    ];
    const request = { runId: run.id, turn: state.turns, messages, tools: [], signal: live.abort.signal };
    const turn = await (await beforeModelCall(live, request, this.llm)).complete(request);
    const attempts = (state.plan_attempts ?? 0) + 1;
    const { steps, problems } = parsePlan(turn.content);
    if (!steps) {
      if (attempts >= 2) {
        await this.finisher.finishLive(live, 'failed', {
          error: `the model's plan is invalid: ${problems.join('; ')}`,
        });
        return 'finished';
      }
      await live.emit('plan_rejected', { problems });
      return {
        ...state,
        turns: state.turns + 1,
        plan_attempts: attempts,
        messages: [
          ...state.messages,
          { role: 'assistant', content: turn.content },
          {
            role: 'user',
            content: `Your plan cannot be used: ${problems.join('; ')}. Reply with a corrected plan, as JSON only.`,
          },
        ],
      };
    }
    await live.emit('plan', { steps, ...(turn.usage ? { usage: turn.usage } : {}) });
    return {
      ...state,
      phase: 'steps',
      turns: state.turns + 1,
      plan_attempts: attempts,
      plan: steps,
      messages: [...state.messages, { role: 'assistant', content: turn.content }],
      steps: Object.fromEntries(steps.map((s) => [s.id, { status: 'pending' as const }])),
    };
  }

  /**
   * Starts every step whose dependencies are done (concurrently, each a ReAct sub-run with its own hooks), waits for
   * one to end.
   */
  async runSteps(live: LiveRun, state: StepsState, children: ChildRuns): Promise<StepsState | 'finished'> {
    const { run } = live;
    const plan = state.plan;
    const steps = { ...state.steps };
    const failed = plan.find((s) => steps[s.id].status === 'failed');
    if (failed) {
      await this.finisher.finishLive(live, 'failed', {
        error: `step "${failed.id}" failed: ${steps[failed.id].error ?? 'unknown error'}`,
      });
      return 'finished';
    }
    if (plan.every((s) => steps[s.id].status === 'completed')) return { ...state, phase: 'synthesis' };
    const ready = plan.filter(
      (s) => steps[s.id].status === 'pending' && s.depends_on.every((d) => steps[d].status === 'completed'),
    );
    const started = await Promise.all(
      ready.map(async (step) => {
        const context = step.depends_on.map((d) => `Result of step "${d}": ${steps[d].answer ?? ''}`).join('\n');
        const task = `${step.task}${context ? `\n\n${context}` : ''}`;
        const message = `${task}\n\n(This is one step of a larger request: ${run.message})`;
        try {
          const child = await children.start({
            orgId: run.orgId,
            userId: run.userId,
            agentId: run.agentId,
            message,
            surface: 'dag',
            mode: 'react',
            parentRunId: run.id,
            parentCallId: `step:${step.id}`,
            ...(run.hooks === 'bypassed' ? { eval: run.state.eval ?? { reads: 'live' } } : {}),
          });
          return [step.id, { status: 'running' as const, run_id: child.runId }] as const;
        } catch (err) {
          return [step.id, { status: 'failed' as const, error: (err as Error).message }] as const;
        }
      }),
    );
    for (const [id, progress] of started) steps[id] = progress;
    if (started.length > 0 && !(await this.store.saveState(live, { ...state, steps }))) return 'finished';
    const running = plan.filter((s) => steps[s.id].status === 'running');
    if (running.length === 0) return { ...state, steps };
    const outcome = await Promise.race(
      running.map((s) =>
        children.waitForRun(childRunOf(s, steps[s.id]), live.abort.signal).then((o) => ({ id: s.id, o })),
      ),
    );
    steps[outcome.id] =
      outcome.o.status === 'completed'
        ? { status: 'completed', run_id: outcome.o.runId, answer: outcome.o.answer ?? '' }
        : { status: 'failed', run_id: outcome.o.runId, error: outcome.o.error ?? `ended ${outcome.o.status}` };
    return { ...state, steps };
  }

  async synthesize(live: LiveRun, state: StepsState): Promise<StepsState | 'finished'> {
    const { run } = live;
    const results = state.plan.map((s) => `- ${s.id} (${s.task}): ${state.steps[s.id].answer ?? ''}`).join('\n');
    const messages: ChatMessage[] = [
      state.messages[0],
      {
        role: 'user',
        content:
          `${run.message}\n\nThe plan's steps are done. Their results:\n${results}\n\n` +
          `Write the final answer to the request.`,
      },
    ];
    const turn = await this.react.completeWithRetry(live, {
      runId: run.id,
      turn: state.turns,
      messages,
      tools: [],
      signal: live.abort.signal,
    });
    // Stop hooks rewrite (or withhold) the synthesized answer; there is no turn to continue here, so a block refuses.
    const stop = await stopWith(live, state, turn.content, { canContinue: false });
    if (!('answer' in stop)) {
      const ending = stopEnding(stop);
      await this.finisher.finishLive(live, ending.status, { error: ending.error });
      return 'finished';
    }
    await this.finisher.finishLive(
      live,
      'completed',
      { answer: stop.answer, usage: turn.usage },
      { ...state, turns: state.turns + 1 },
    );
    return 'finished';
  }
}

/** A running step's child run: a stored state without one is corrupt, and the run fails rather than wait on nothing. */
function childRunOf(step: PlanStep, progress: StepProgress): string {
  if (progress.run_id === undefined) throw new Error(`step "${step.id}" is running without a child run`);
  return progress.run_id;
}
