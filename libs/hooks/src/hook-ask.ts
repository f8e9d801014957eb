import type { HookOutcomeKind, ToolCallMetadata } from './hook.types.js';

const MAX_ASK_REASON_CHARS = 2000;

/**
 * A PreToolUse hook asked for a human approval (`HookResult.ask`): noted on the call's metadata, which the
 * confirmation gate (always last) reads to require a confirmation and to show the reason on the card.
 */
export function noteAsk(metadata: ToolCallMetadata, hook: string, reason: unknown): HookOutcomeKind {
  // Never throws (it runs outside the hook's failure policy): a reason that is not text still asks, without it.
  const text =
    (typeof reason === 'string' ? reason : '').trim().slice(0, MAX_ASK_REASON_CHARS) ||
    `hook '${hook}' asks for a human approval`;
  (metadata.confirmationAsks ??= []).push({ hook, reason: text });
  return 'ask';
}

/** The reason a card shows for the hooks that asked ("hook: reason; ..."), or null when none asked. */
export function askReasonOf(metadata: ToolCallMetadata): string | null {
  const asks = metadata.confirmationAsks ?? [];
  return asks.length ? asks.map((a) => `${a.hook}: ${a.reason}`).join('; ') : null;
}

/**
 * Why a person is asked, as the approver reads it (#32): the action's condition, or that it always needs one, or the
 * agent's "every call" setting. A hook's ask has its own reason (`askReasonOf`); a question to a person needs none.
 */
export function triggerOf(metadata: ToolCallMetadata): string | null {
  if (metadata.humanTask) return null;
  if (metadata.confirmationWhen) return metadata.confirmationWhen;
  if (metadata.requiresConfirmation) return 'this action always needs an approval';
  if (metadata.agent?.requireConfirmationForAll) return "this agent's tool calls all need an approval";
  return null;
}
