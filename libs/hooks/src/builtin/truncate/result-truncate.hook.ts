import { Hook } from '../../hook.decorator.js';
import { PostToolUseHook, type HookContext, type HookResult } from '../../hook.types.js';

export interface ResultTruncateConfig {
  max_chars?: number;
}

export const RESULT_TRUNCATE_HOOK = 'result_truncate';
export const DEFAULT_MAX_CHARS = 8000;

/** The observation cut to `maxChars` (UTF-16 code units), never splitting a surrogate pair, plus a marker. */
export function truncateObservation(text: string, maxChars: number): { text: string; shown: number } {
  let shown = maxChars;
  const last = text.charCodeAt(shown - 1);
  if (last >= 0xd800 && last <= 0xdbff) shown -= 1;
  return { text: `${text.slice(0, shown)}\n…[truncated: ${text.length} chars, showing ${shown}]`, shown };
}

/**
 * Cuts observations longer than `max_chars` before they reach the model, ending them with a marker that states
 * the original length. Late priority (900) so it sees what other PostToolUse hooks produced; the runtime keeps the
 * full text in the run's tool-call record.
 */
@Hook({
  name: RESULT_TRUNCATE_HOOK,
  priority: 900,
  description:
    'Cuts tool observations longer than max_chars (default 8000) and marks the cut with the original length.',
  configSchema: {
    type: 'object',
    properties: {
      max_chars: {
        type: 'integer',
        minimum: 100,
        maximum: 1_000_000,
        default: DEFAULT_MAX_CHARS,
        description: 'Longest observation the model receives',
      },
    },
    additionalProperties: false,
  },
})
export class ResultTruncateHook extends PostToolUseHook<ResultTruncateConfig> {
  override shouldTrigger(ctx: HookContext, config: ResultTruncateConfig): boolean {
    return (ctx.toolResult?.length ?? 0) > (config.max_chars ?? DEFAULT_MAX_CHARS);
  }

  execute(ctx: HookContext, config: ResultTruncateConfig): HookResult {
    const max = config.max_chars ?? DEFAULT_MAX_CHARS;
    const text = ctx.toolResult ?? '';
    if (text.length <= max) return {};
    const cut = truncateObservation(text, max);
    return {
      modifiedResult: cut.text,
      sideEffects: [`observation truncated from ${text.length} to ${cut.shown} chars`],
    };
  }
}
