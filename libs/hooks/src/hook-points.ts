import type { HookRegistry, ToolCallContext } from './hook-registry.js';
import type { HookPoint } from './hook.types.js';
import type { TextHookVerdict } from './text-hook-points.js';

export type { TextHookVerdict } from './text-hook-points.js';

/**
 * Runs the hooks of one text point (UserPromptSubmit, PreModelCall, PostToolUseFailure, Stop) with the registry's
 * semantics (DESIGN.md): run order, each hook sees the text as rewritten by the hooks before it, the first block
 * stops the chain, per-hook timeout, every outcome recorded and streamed. A failing hook blocks when its policy says
 * `block` (the default of UserPromptSubmit and PreModelCall).
 */
export function runTextHooks(
  registry: HookRegistry,
  point: HookPoint,
  ctx: ToolCallContext,
  text: string,
): Promise<TextHookVerdict> {
  return registry.runText(point, ctx, text);
}
