import type { HookChainPoint, HookChainRun } from './hook-chain.js';
import { callExecute, textOf } from './hook-chain-points.js';
import { BLOCKING_POINTS, HookPoint, type HookOutcome, type HookOutcomeKind, type HookResult } from './hook.types.js';

// The hook points that run on a text (prompt, error observation, answer) rather than on a tool call: one
// HookChainPoint per point, made once, with the result checks that differ per point.

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

const textPoints = new Map<HookPoint, HookChainPoint<TextHookVerdict>>();

/**
 * UserPromptSubmit, PreModelCall, PostToolUseFailure, Stop: the text (prompt, error observation, answer) rewritten
 * in turn, a model chosen, context added; the first block stops, and a failure blocks when its policy says `block`
 * at a point that can block.
 */
export function textPoint(point: HookPoint): HookChainPoint<TextHookVerdict> {
  let spec = textPoints.get(point);
  if (!spec) textPoints.set(point, (spec = makeTextPoint(point)));
  return spec;
}

function makeTextPoint(point: HookPoint): HookChainPoint<TextHookVerdict> {
  const verdict = (run: HookChainRun): TextHookVerdict => {
    const v: TextHookVerdict = {
      allow: true,
      text: textOf(run),
      additionalContext: run.additionalContext,
      outcomes: run.outcomes,
    };
    if (run.model !== undefined) v.model = run.model;
    return v;
  };
  return {
    point,
    keepsSideEffectsOfInvalidResult: false,
    call: callExecute,
    apply(result, _entry, run) {
      checkTextResult(point, result);
      if (result.allow === false) return 'block';
      let kind: HookOutcomeKind = 'allow';
      if (result.modifiedResult !== undefined) {
        run.text = result.modifiedResult;
        kind = 'rewrite';
      }
      if (result.modifiedModel !== undefined) {
        run.model = result.modifiedModel;
        kind = 'rewrite';
      }
      if (result.additionalContext) run.additionalContext.push(result.additionalContext);
      return kind;
    },
    stopsOnFailure: (_err, entry) => entry.onError === 'block' && BLOCKING_POINTS.has(point),
    finish: verdict,
    stopped(run, entry, error, failed) {
      const v: TextHookVerdict = { ...verdict(run), allow: false, blockedBy: entry.name, error };
      if (failed) v.failed = true;
      return v;
    },
  };
}

/** A field that makes no sense for the point is a hook failure (its on_error applies), never half-applied. */
function checkTextResult(point: HookPoint, result: HookResult): void {
  if (result.allow === false && !BLOCKING_POINTS.has(point)) throw new Error(`a ${point} hook cannot block`);
  if (result.modifiedResult !== undefined) {
    if (typeof result.modifiedResult !== 'string') throw new Error('modifiedResult must be a string');
    if (point === HookPoint.PreModelCall)
      throw new Error('a PreModelCall hook rewrites the model (modifiedModel), not a text');
  }
  if (
    result.modifiedModel !== undefined &&
    (point !== HookPoint.PreModelCall || typeof result.modifiedModel !== 'string' || result.modifiedModel === '')
  ) {
    throw new Error('modifiedModel must be a model name, and only from a PreModelCall hook');
  }
  if (result.additionalContext !== undefined && typeof result.additionalContext !== 'string')
    throw new Error('additionalContext must be a string');
  if (result.modifiedArgs !== undefined) throw new Error(`modifiedArgs is only valid for PreToolUse, not ${point}`);
}
