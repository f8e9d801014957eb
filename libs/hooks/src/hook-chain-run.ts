import type { RegisteredHook } from './hook-chain.types.js';
import type { HookOutcome, HookResult, ToolArgs } from './hook.types.js';

/**
 * What one pass of a chain carries from hook to hook: what the next hook sees (`args`, `text`), what the hooks
 * added, and every outcome. One class for every point, so the runner reads one object shape.
 */
export class HookChainRun {
  wouldRequireConfirmation = false;
  approval: HookResult['approval'] = undefined;
  model: string | undefined = undefined;
  /** The detail of an outcome that is neither a block nor an error (the blocked-call listeners name the block). */
  note: string | undefined = undefined;
  /** The call a PreToolUse hook blocked (the blocked-call listeners are told). */
  blocked: { blockedBy: string; error: string } | undefined = undefined;
  /** Why a PreToolUse hook could not decide (its `suspend`): the call is left for the run's next driver. */
  suspended: string | undefined = undefined;
  /** The confirmation a PreToolUse gate parked the call on (its `park`): the run waits for it without a process. */
  parked: HookResult['park'] = undefined;
  /**
   * PreToolUse: the last hook whose rewrite changed the args; the hooks before it saw other args than the final ones.
   */
  lastChange: RegisteredHook | undefined = undefined;
  /**
   * PreToolUse: every hook whose rewrite changed the args (the transforms of this call), made when the first one does.
   */
  changedBy: Set<RegisteredHook> | undefined = undefined;
  /** Why the chain stops when the point's `apply` blocks without the hook's own reason (the decide pass's refusal). */
  blockReason: string | undefined = undefined;
  /** performance.now() at the last hook boundary, where the next hook's duration starts (HookChain's own). */
  started = 0;
  /** Whether each hook of this run is timed (hook-timing.ts); an untimed synchronous hook reports 0 ms. */
  timed = true;

  constructor(
    /** The tool args the next hook sees (PreToolUse hooks rewrite them). */
    public args: ToolArgs,
    /** The text the next hook sees as `toolResult` (rewritten by PostToolUse and the text points). */
    public text: string | undefined,
    /** Context the hooks add (SessionStart, the text points); empty and unused elsewhere. */
    readonly additionalContext: string[] = NO_CONTEXT,
    /** Every outcome, in order: a later pass of the same call (decide, gate) appends to the first pass's list. */
    readonly outcomes: HookOutcome[] = [],
  ) {}
}

/**
 * Whether a rewrite leaves the args as they were: the same keys with the same values (`===`). A new object or array
 * as a value counts as a change (cheap, and on the safe side: the decide pass then runs the hooks before it again).
 */
export function sameArgs(before: ToolArgs, after: ToolArgs): boolean {
  if (before === after) return true;
  let keys = 0;
  for (const key in after) {
    if (!Object.hasOwn(after, key)) continue;
    if (!Object.hasOwn(before, key) || before[key] !== after[key]) return false;
    keys++;
  }
  for (const key in before) if (Object.hasOwn(before, key) && --keys < 0) return false;
  return true;
}

export const NO_CONTEXT: string[] = Object.freeze([]) as unknown as string[];
