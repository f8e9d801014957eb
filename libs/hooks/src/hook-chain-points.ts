import { isDroppedDatabaseConnection } from '@warden/database';
import { noteAsk } from './hook-ask.js';
import type { HookChainPoint, HookChainRun, RegisteredHook } from './hook-chain.js';
import { sameArgs } from './hook-chain-run.js';
import type { HookInvocation, ToolCallContext } from './hook-invocation.js';
import {
  HookPoint,
  type HookOutcome,
  type HookOutcomeKind,
  type HookResult,
  type PostToolUseHook,
  type ToolArgs,
} from './hook.types.js';

/**
 * What each hook point does with its hooks' results (DESIGN.md "The hook contract"); HookChain runs them all the
 * same way. Each is a static object: nothing is allocated per call but the run and the result. The text points
 * (UserPromptSubmit, PreModelCall, PostToolUseFailure, Stop) are in text-hook-points.ts.
 */

export interface PreToolUseVerdict {
  allow: boolean;
  /** The args as rewritten by the hooks; what the tool must receive. */
  args: ToolArgs;
  blockedBy?: string;
  /** Why the call was blocked (the hook's error, or the failure that closed the gate). */
  error?: string;
  wouldRequireConfirmation: boolean;
  outcomes: HookOutcome[];
  /** The approval the call passed the gate with (tool + args digest the approver saw), if the gate ran. */
  approval?: HookResult['approval'];
  /** A hook could not decide (HookResult.suspend): neither run nor block the call; the run is suspended. */
  suspended?: string;
  /** The gate parked the call on this confirmation (HookResult.park): neither run nor block it; the run parks. */
  parked?: NonNullable<HookResult['park']>;
}

/** PostToolUse and the text points start their run with a text (HookChain's callers give one). */
export const textOf = (run: HookChainRun): string => {
  if (run.text === undefined) throw new Error('this hook point runs on a text, and its run has none');
  return run.text;
};

export const callExecute = (entry: RegisteredHook, inv: HookInvocation): unknown =>
  entry.hook.execute(inv, entry.config);
const neverStops = (): boolean => false;

/**
 * PreToolUse: args rewrites carried forward, asks noted for the gate, the first block stops;
 * a failure blocks unless on_error: allow.
 */
export const PRE_TOOL_USE: HookChainPoint<PreToolUseVerdict> = {
  point: HookPoint.PreToolUse,
  keepsSideEffectsOfInvalidResult: false,
  call: callExecute,
  apply(result, entry, run, ctx) {
    // Untyped at run time: YAML, module and http hooks return whatever they like.
    const args: unknown = result.modifiedArgs;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw new Error('modifiedArgs must be an object');
    }
    if (result.suspend !== undefined) {
      run.suspended = result.suspend;
      return 'block';
    }
    if (result.park !== undefined) return park(result.park, entry, run, ctx);
    if (result.allow === false) return 'block';
    let kind: HookOutcomeKind = 'allow';
    if (result.ask !== undefined) kind = noteAsk(ctx.metadata, entry.name, result.ask);
    if (result.wouldRequireConfirmation) {
      kind = 'would_require_confirmation';
      run.wouldRequireConfirmation = true;
    }
    if (result.approval && entry.runsLast) run.approval = result.approval;
    if (result.modifiedArgs !== undefined) {
      if (!sameArgs(run.args, result.modifiedArgs)) (run.changedBy ??= new Set()).add((run.lastChange = entry));
      run.args = result.modifiedArgs;
      if (kind === 'allow') kind = 'rewrite';
    }
    return kind;
  },
  stopsOnFailure(err, entry) {
    // A dropped database connection decides nothing: the call is left for the run's next driver (recovery).
    if (isDroppedDatabaseConnection(err)) throw err;
    return entry.onError !== 'allow';
  },
  finish(run) {
    const verdict: PreToolUseVerdict = {
      allow: true,
      args: run.args,
      wouldRequireConfirmation: run.wouldRequireConfirmation,
      outcomes: run.outcomes,
    };
    if (run.approval) verdict.approval = run.approval;
    return verdict;
  },
  stopped(run, entry, error) {
    const verdict: PreToolUseVerdict = {
      allow: false,
      args: run.args,
      blockedBy: entry.name,
      error,
      wouldRequireConfirmation: run.wouldRequireConfirmation,
      outcomes: run.outcomes,
    };
    if (run.suspended !== undefined) verdict.suspended = run.suspended;
    if (run.parked !== undefined) {
      verdict.parked = run.parked;
      verdict.error = `waiting for the decision on confirmation ${run.parked.confirmationId}`;
    }
    return verdict;
  },
};

/** Only the gate (it runs last) may park a call, and only in a run that can park; anything else is a hook failure. */
function park(parked: unknown, entry: RegisteredHook, run: HookChainRun, ctx: ToolCallContext): HookOutcomeKind {
  const { confirmationId, expiresAt } = (parked ?? {}) as { confirmationId?: unknown; expiresAt?: unknown };
  if (!entry.runsLast || !ctx.metadata.canPark)
    throw new Error('only the confirmation gate of a run that can park may park a call');
  if (typeof confirmationId !== 'string' || confirmationId === '')
    throw new Error('park must name the confirmation the call waits for');
  if (expiresAt !== undefined && (typeof expiresAt !== 'string' || Number.isNaN(Date.parse(expiresAt))))
    throw new Error('park.expiresAt must be an ISO time');
  run.parked = expiresAt === undefined ? { confirmationId } : { confirmationId, expiresAt };
  return 'block';
}

/**
 * PostToolUse: observation rewrites carried forward;
 * nothing blocks and a failing hook leaves the observation as it was.
 */
export const POST_TOOL_USE: HookChainPoint<{ result: string; outcomes: HookOutcome[] }> = {
  point: HookPoint.PostToolUse,
  keepsSideEffectsOfInvalidResult: true,
  call: callExecute,
  apply(result, _entry, run) {
    if (result.modifiedResult === undefined) return 'allow';
    if (typeof result.modifiedResult !== 'string') throw new Error('modifiedResult must be a string');
    run.text = result.modifiedResult;
    return 'rewrite';
  },
  stopsOnFailure: neverStops,
  finish: (run) => ({ result: textOf(run), outcomes: run.outcomes }),
  stopped: (run) => ({ result: textOf(run), outcomes: run.outcomes }),
};

/** SessionStart: each hook's additionalContext collected in order; failures are recorded only. */
export const SESSION_START: HookChainPoint<{ additionalContext: string[]; outcomes: HookOutcome[] }> = {
  point: HookPoint.SessionStart,
  keepsSideEffectsOfInvalidResult: true,
  call: callExecute,
  apply(result, _entry, run) {
    if (result.additionalContext !== undefined) {
      if (typeof result.additionalContext !== 'string') throw new Error('additionalContext must be a string');
      if (result.additionalContext.length > 0) run.additionalContext.push(result.additionalContext);
    }
    return 'allow';
  },
  stopsOnFailure: neverStops,
  finish: (run) => ({ additionalContext: run.additionalContext, outcomes: run.outcomes }),
  stopped: (run) => ({ additionalContext: run.additionalContext, outcomes: run.outcomes }),
};

/**
 * PostToolUse hooks with `onBlocked` (audit) told about a call a PreToolUse hook blocked (`run.blocked`); each outcome
 * names the block (`run.note`), errors are recorded only.
 */
export const BLOCKED_CALL: HookChainPoint<HookOutcome[]> = {
  point: HookPoint.PostToolUse,
  keepsSideEffectsOfInvalidResult: false,
  call: (entry, inv, run) => {
    const hook = entry.hook as PostToolUseHook;
    // HookChain calls only hooks with onBlocked, and only for a blocked call: anything else is recorded as an error.
    if (!hook.onBlocked || !run.blocked) throw new Error('a blocked-call listener was called without a blocked call');
    return hook.onBlocked(inv, run.blocked, entry.config as Record<string, unknown>);
  },
  apply: () => 'allow',
  stopsOnFailure: neverStops,
  finish: (run) => run.outcomes,
  stopped: (run) => run.outcomes,
};
