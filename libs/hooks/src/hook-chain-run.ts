import type { HookOutcome, HookResult, ToolArgs } from './hook.types.js';

/**
 * What one pass of a chain carries from hook to hook: what the next hook sees (`args`, `text`), what the hooks
 * added, and every outcome. One class for every point, so the runner reads one object shape.
 */
export class HookChainRun {
  readonly outcomes: HookOutcome[] = [];
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
  /** performance.now() at the last hook boundary, where the next hook's duration starts (HookChain's own). */
  started = 0;

  constructor(
    /** The tool args the next hook sees (PreToolUse hooks rewrite them). */
    public args: ToolArgs,
    /** The text the next hook sees as `toolResult` (rewritten by PostToolUse and the text points). */
    public text: string | undefined,
    /** Context the hooks add (SessionStart, the text points); empty and unused elsewhere. */
    readonly additionalContext: string[] = NO_CONTEXT,
  ) {}
}

const NO_CONTEXT: string[] = Object.freeze([]) as unknown as string[];
