import type { RunEventTokenUsage } from '@warden/common';
import type { ToolSpec } from '../tools/tool-registry.js';

/** A message in the OpenAI chat format: what the run state stores and what every provider reads. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface LlmToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** The arguments exactly as the model sent them (echoed back to it in the assistant message). */
  rawArguments: string;
}

export interface LlmTurn {
  content: string;
  toolCalls: LlmToolCall[];
  /** Tokens the call used, as the model server reported them (none: it did not say). */
  usage?: RunEventTokenUsage;
}

/** The three counts of a reported usage (OpenAI's shape; servers that omit the total get the sum). */
export function tokenUsage(
  reported: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null | undefined,
): RunEventTokenUsage | undefined {
  if (!reported || typeof reported.prompt_tokens !== 'number' || typeof reported.completion_tokens !== 'number')
    return undefined;
  const { prompt_tokens, completion_tokens } = reported;
  return { prompt_tokens, completion_tokens, total_tokens: reported.total_tokens ?? prompt_tokens + completion_tokens };
}

export interface LlmRequest {
  runId: string;
  /** How many model calls this run made before this one (scripted models play turn `turn`). */
  turn: number;
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
  /** Streaming providers report the answer's text as it arrives. */
  onContent?: (delta: string) => void;
}

/**
 * A model failure worded for the person reading the run's `error` event. `retryable`: the reply was cut off before
 * its end (a truncated or empty stream), so asking again may well succeed.
 */
export class LlmError extends Error {
  constructor(
    message: string,
    readonly retryable = false,
  ) {
    super(message);
  }
}

/** One interface for every model backend. */
export abstract class LlmProvider {
  abstract complete(request: LlmRequest): Promise<LlmTurn>;
}

/** Parses a tool call's JSON arguments; malformed JSON is an LlmError naming the tool. */
export function parseToolArguments(tool: string, raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new LlmError(`the model returned malformed JSON arguments for tool "${tool}": ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new LlmError(`the model returned arguments for tool "${tool}" that are not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}
