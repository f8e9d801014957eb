import type { PreToolUseVerdict } from './hook-chain-points.js';
import type { ToolCallContext } from './hook-invocation.js';
import type { AgentHookSettings, ToolArgs } from './hook.types.js';

/** One PreToolUse decision of a live call, as the chain gave it (the run goes on with it; this is only a record). */
export interface LiveDecision {
  ctx: ToolCallContext;
  /** The model's args, as the chain received them. */
  modelArgs: ToolArgs;
  verdict: PreToolUseVerdict;
  /** The agent's own hooks config the chain was built from (a shadow of the org hooks runs it with its own). */
  hooksConfig: unknown;
  agent: AgentHookSettings | undefined;
  at: Date;
}

/**
 * Where live decisions go (policy lifecycle, #34: the record replays read and shadows compare against). `record`
 * is called on the live call's path: it must only enqueue — no await, no I/O, never throw.
 */
export abstract class DecisionSink {
  abstract record(decision: LiveDecision): void;
}
