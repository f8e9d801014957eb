import { HookInvocation, type HookRegistry, type RegisteredHook, type ToolCallContext } from './hook-registry.js';
import { BLOCKING_POINTS, HookPoint, type HookOutcome, type HookOutcomeKind, type HookResult } from './hook.types.js';

/** What the hooks of a text point (UserPromptSubmit, PreModelCall, PostToolUseFailure, Stop) decided. */
export interface TextHookVerdict {
  allow: boolean;
  blockedBy?: string;
  /** The block reason (Stop: why the model must continue). */
  error?: string;
  /** The block came from a hook that failed (on_error: block), not from a decision. */
  failed?: boolean;
  /** The prompt / observation / answer as rewritten by the hooks. */
  text: string;
  additionalContext: string[];
  /** PreModelCall: the model a hook chose instead. */
  model?: string;
  outcomes: HookOutcome[];
}

const isThenable = <T>(v: T | PromiseLike<T>): v is PromiseLike<T> =>
  v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';

/**
 * Runs the hooks of one text point with the registry's semantics (DESIGN.md): run order, each hook sees the text as
 * rewritten by the hooks before it, the first block stops the chain, per-hook timeout, every outcome recorded and
 * streamed. A failing hook blocks when its policy says `block` (the default of UserPromptSubmit and PreModelCall).
 */
export async function runTextHooks(registry: HookRegistry, point: HookPoint, ctx: ToolCallContext, text: string): Promise<TextHookVerdict> {
  const verdict: TextHookVerdict = { allow: true, text, additionalContext: [], outcomes: [] };
  const hooks = registry.hooksAt(point);
  if (hooks.length === 0) return verdict;
  registry.attachAgent(ctx);
  let started = performance.now();
  const record = async (entry: RegisteredHook, kind: HookOutcomeKind, sideEffects: string[], detail?: string) => {
    const pending = registry.record(ctx, verdict.outcomes, entry, kind, sideEffects, performance.now() - started, detail);
    if (pending) await pending;
    started = performance.now();
  };
  for (const entry of hooks) {
    const inv = new HookInvocation(ctx, point, ctx.toolArgs, verdict.text);
    if (!registry.triggers(entry, inv)) continue;
    let result: HookResult;
    try {
      const returned = registry.execute(entry, inv, ctx.signal);
      result = isThenable(returned) ? await returned : returned;
      checkResult(point, result);
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      await record(entry, 'error', [], detail);
      if (entry.onError === 'block' && BLOCKING_POINTS.has(point)) {
        return { ...verdict, allow: false, blockedBy: entry.name, error: `hook failed: ${detail}`, failed: true };
      }
      continue;
    }
    const sideEffects = result.sideEffects ?? [];
    if (result.allow === false) {
      const error = result.error || `Blocked by hook '${entry.name}'`;
      await record(entry, 'block', sideEffects, error);
      return { ...verdict, allow: false, blockedBy: entry.name, error };
    }
    let kind: HookOutcomeKind = 'allow';
    if (result.modifiedResult !== undefined) { verdict.text = result.modifiedResult; kind = 'rewrite'; }
    if (result.modifiedModel !== undefined) { verdict.model = result.modifiedModel; kind = 'rewrite'; }
    if (result.additionalContext) verdict.additionalContext.push(result.additionalContext);
    await record(entry, kind, sideEffects);
  }
  return verdict;
}

/** A field that makes no sense for the point is a hook failure (its on_error applies), never half-applied. */
function checkResult(point: HookPoint, result: HookResult): void {
  if (result.allow === false && !BLOCKING_POINTS.has(point)) throw new Error(`a ${point} hook cannot block`);
  if (result.modifiedResult !== undefined) {
    if (typeof result.modifiedResult !== 'string') throw new Error('modifiedResult must be a string');
    if (point === HookPoint.PreModelCall) throw new Error('a PreModelCall hook rewrites the model (modifiedModel), not a text');
  }
  if (result.modifiedModel !== undefined && (point !== HookPoint.PreModelCall || typeof result.modifiedModel !== 'string' || result.modifiedModel === '')) {
    throw new Error('modifiedModel must be a model name, and only from a PreModelCall hook');
  }
  if (result.additionalContext !== undefined && typeof result.additionalContext !== 'string') throw new Error('additionalContext must be a string');
  if (result.modifiedArgs !== undefined) throw new Error(`modifiedArgs is only valid for PreToolUse, not ${point}`);
}
