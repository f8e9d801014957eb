import { HookPoint, runTextHooks, type ToolCallContext } from '@warden/hooks';
import type { DataSource } from 'typeorm';
import type { LlmProviderFactory } from '../llm/llm-provider.factory.js';
import { LlmError, type ChatMessage, type LlmProvider, type LlmRequest } from '../llm/llm-provider.js';
import type { RunState } from '../runs/run.entity.js';
import type { LiveRun } from './live-run.js';

/**
 * The run-level hook points (UserPromptSubmit, PreModelCall, Stop, PostToolUseFailure), one function per call site in
 * the engine. Each is a no-op, with no extra await, for a run without hooks at its point.
 */

/** How often a run's Stop hooks may make the model continue; later blocks are recorded and the answer stands. */
export const MAX_STOP_CONTINUATIONS = 3;

function runContext(live: LiveRun, extra: Partial<ToolCallContext['metadata']> = {}): ToolCallContext {
  const { run } = live;
  return {
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
      ...extra,
    },
    emit: live.emit,
    signal: live.abort.signal,
  };
}

/**
 * UserPromptSubmit on the run's prompt (the last user message): the messages with the prompt as the hooks left it
 * (plus their context), or why it was blocked — then the model is never called. A rewritten prompt also replaces the
 * run's stored message, so the conversation keeps the redacted text only.
 */
export async function submitPrompt(
  live: LiveRun,
  messages: ChatMessage[],
  db: DataSource,
): Promise<{ messages: ChatMessage[] } | { blocked: string }> {
  const index = messages.map((m) => m.role).lastIndexOf('user');
  if (index < 0 || live.registry.hooksAt(HookPoint.UserPromptSubmit).length === 0) return { messages };
  const prompt = (messages[index] as Extract<ChatMessage, { role: 'user' }>).content;
  const verdict = await runTextHooks(live.registry, HookPoint.UserPromptSubmit, runContext(live), prompt);
  if (!verdict.allow) return { blocked: `the prompt was blocked by ${verdict.blockedBy}: ${verdict.error}` };
  if (verdict.text !== prompt) {
    await db.query(`UPDATE agent_runs SET message = $2 WHERE id = $1 AND lease_epoch = $3`, [
      live.run.id,
      verdict.text,
      live.epoch,
    ]);
    live.run.message = verdict.text;
  }
  const next = [...messages];
  next[index] = { role: 'user', content: [verdict.text, ...verdict.additionalContext].join('\n\n') };
  return { messages: next };
}

/**
 * PreModelCall before a model call: the provider to call (another model when a hook chose one); a block fails the
 * run.
 */
export async function beforeModelCall(
  live: LiveRun,
  request: LlmRequest,
  llm: LlmProviderFactory,
): Promise<LlmProvider> {
  if (live.registry.hooksAt(HookPoint.PreModelCall).length === 0) return live.provider;
  const model = {
    provider: live.config.model.provider,
    model: live.config.model.model,
    turn: request.turn,
    messages: request.messages.length,
  };
  const verdict = await runTextHooks(live.registry, HookPoint.PreModelCall, runContext(live, { model }), '');
  if (!verdict.allow) throw new LlmError(`the model call was blocked by ${verdict.blockedBy}: ${verdict.error}`);
  return verdict.model ? llm.create({ ...live.config.model, model: verdict.model }, live.run.orgId) : live.provider;
}

/** Whether the run's answer may stream as it arrives (not when Stop hooks may still rewrite it). */
export function answerStreams(live: LiveRun): boolean {
  return live.registry.hooksAt(HookPoint.Stop).length === 0;
}

/** What the Stop hooks make of a final answer. */
export type StopOutcome =
  | { answer: string }
  /** A hook blocked it: the model continues with `continueWith`; the blocked answer itself is withheld. */
  | { continueWith: string; withheld: string }
  /** A hook blocked it and no continuation is left: the run ends `refused` with this reason. */
  | { refused: string }
  | { failed: string };

/**
 * Stop on the final answer: the answer as the hooks left it, or the reason the model must continue (a Stop hook
 * blocked; at most MAX_STOP_CONTINUATIONS times per run), or a refusal (blocked again after the last continuation,
 * or blocked where no continuation is possible), or a failure (a hook with on_error: block failed). Fail closed: a
 * blocked answer is never delivered, whatever happens next.
 */
export async function stopWith(
  live: LiveRun,
  state: RunState,
  answer: string,
  opts: { canContinue: boolean },
): Promise<StopOutcome> {
  if (live.registry.hooksAt(HookPoint.Stop).length === 0) return { answer };
  const continued = state.stop_continuations ?? 0;
  const verdict = await runTextHooks(
    live.registry,
    HookPoint.Stop,
    runContext(live, { stopHookActive: continued > 0 }),
    answer,
  );
  if (verdict.allow) return { answer: verdict.text };
  if (verdict.failed) return { failed: `the answer was withheld: ${verdict.blockedBy} ${verdict.error}` };
  const reason = verdict.error ?? 'blocked';
  if (opts.canContinue && continued < MAX_STOP_CONTINUATIONS)
    return { continueWith: reason, withheld: `[answer withheld: blocked by ${verdict.blockedBy}]` };
  return { refused: `the answer was blocked by ${verdict.blockedBy}: ${reason}` };
}

/** How the run ends on a Stop outcome that delivers nothing: `failed` (a hook failed) or `refused` (a hook blocked). */
export function stopEnding(stop: Exclude<StopOutcome, { answer: string }>): {
  status: 'failed' | 'refused';
  error: string;
} {
  if ('failed' in stop) return { status: 'failed', error: stop.failed };
  return { status: 'refused', error: 'refused' in stop ? stop.refused : stop.continueWith };
}

/** PostToolUseFailure on a failed call's observation (before PostToolUse): what the model reads about the failure. */
export async function toolFailureObservation(live: LiveRun, ctx: ToolCallContext, content: string): Promise<string> {
  if (live.registry.hooksAt(HookPoint.PostToolUseFailure).length === 0) return content;
  const verdict = await runTextHooks(live.registry, HookPoint.PostToolUseFailure, ctx, content);
  return [verdict.text, ...verdict.additionalContext].join('\n\n');
}
