import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions/completions';
import { egressRefusalIn, type EgressPolicy } from '@warden/common';
import type { ModelSettings } from '../agents/agent-config.js';
import { DEFAULT_LLM_BASE_URL } from './llm-key-origin.js';
import {
  LlmError,
  LlmProvider,
  parseToolArguments,
  tokenUsage,
  type LlmRequest,
  type LlmToolCall,
  type LlmTurn,
} from './llm-provider.js';

/**
 * Any OpenAI-compatible chat completions server, through the official SDK: native and parallel tool calls,
 * streaming.
 */
export class OpenAiProvider extends LlmProvider {
  private readonly client: OpenAI;

  constructor(
    private readonly settings: ModelSettings,
    apiKey: string | (() => Promise<string>),
    private readonly timeoutMs: number,
    egressRequest?: EgressPolicy['request'],
  ) {
    super();
    // egressRequest dials through the egress policy (checked on the address actually dialled). It stands in for
    // fetch: the SDK reads a response's status, headers, url and body (text, json, or iterated as bytes), no more.
    const fetch = egressRequest as unknown as typeof globalThis.fetch | undefined;
    this.client = new OpenAI({
      apiKey,
      baseURL: settings.baseUrl ?? DEFAULT_LLM_BASE_URL,
      maxRetries: 0,
      timeout: timeoutMs,
      fetch,
    });
  }

  async complete(request: LlmRequest): Promise<LlmTurn> {
    // The SDK's timeout ends at the response headers; this one also bounds a stream that stalls halfway.
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = AbortSignal.any([request.signal, deadline]);
    const params: ChatCompletionCreateParamsBase = {
      model: this.settings.model,
      messages: request.messages,
      ...(this.settings.temperature !== undefined ? { temperature: this.settings.temperature } : {}),
      ...(request.tools.length > 0
        ? {
            tools: request.tools.map((t) => ({
              type: 'function' as const,
              function: { name: t.name, description: t.description, parameters: t.parameters },
            })),
          }
        : {}),
    };
    try {
      const turn = this.settings.stream
        ? await this.streamed(params, signal, request.onContent)
        : await this.whole(params, signal);
      // The SDK ends an aborted stream quietly, as if the model had finished: a cut-off turn must not count as one.
      if (signal.aborted) throw signal.reason;
      return turn;
    } catch (err) {
      if (err instanceof LlmError) throw err;
      // The SDK wraps what the key function threw (e.g. a deleted credential): that reason is the one to report.
      if ((err as Error).cause instanceof LlmError) throw (err as Error).cause;
      if (deadline.aborted || err instanceof APIConnectionTimeoutError)
        throw new LlmError(`the model did not answer within ${this.timeoutMs} ms`);
      if (request.signal.aborted || err instanceof APIUserAbortError)
        throw new LlmError('the model call was cancelled');
      if (err instanceof APIError && err.status !== undefined)
        throw new LlmError(`the model server answered HTTP ${err.status}: ${err.message}`);
      throw new LlmError(`the model server could not be reached: ${(egressRefusalIn(err) ?? (err as Error)).message}`);
    }
  }

  private async whole(params: ChatCompletionCreateParamsBase, signal: AbortSignal): Promise<LlmTurn> {
    const completion = await this.client.chat.completions.create({ ...params, stream: false }, { signal });
    const message = completion.choices.at(0)?.message;
    if (!message) throw new LlmError('the model returned no choices');
    const toolCalls: LlmToolCall[] = (message.tool_calls ?? []).flatMap((c) =>
      c.type === 'function'
        ? [
            {
              id: c.id,
              name: c.function.name,
              rawArguments: c.function.arguments,
              args: parseToolArguments(c.function.name, c.function.arguments),
            },
          ]
        : [],
    );
    return { content: message.content ?? '', toolCalls, usage: tokenUsage(completion.usage) };
  }

  /** Accumulates content and tool-call deltas (`index`-keyed, arguments arriving in pieces). */
  private async streamed(
    params: ChatCompletionCreateParamsBase,
    signal: AbortSignal,
    onContent?: (delta: string) => void,
  ): Promise<LlmTurn> {
    // include_usage: the server sends one last chunk (no choices) with the whole call's usage.
    const stream = await this.client.chat.completions.create(
      { ...params, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    let content = '';
    let usage: LlmTurn['usage'];
    let finishReason: string | null = null;
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    for await (const chunk of stream) {
      usage = tokenUsage(chunk.usage) ?? usage;
      const choice = chunk.choices.at(0);
      finishReason = choice?.finish_reason ?? finishReason;
      const delta = choice?.delta;
      if (!delta) continue;
      if (delta.content) {
        content += delta.content;
        onContent?.(delta.content);
      }
      for (const tc of delta.tool_calls ?? []) {
        const acc = calls.get(tc.index) ?? { id: '', name: '', arguments: '' };
        if (tc.id) acc.id = tc.id;
        if (tc.function?.name) acc.name += tc.function.name;
        if (tc.function?.arguments) acc.arguments += tc.function.arguments;
        calls.set(tc.index, acc);
      }
    }
    if (signal.aborted) throw signal.reason;
    // The SDK ends a stream cut off by the server (or an empty one) quietly: without a finish reason the turn is
    // unfinished, its text truncated and its tool calls possibly partial, so none of it may be used.
    if (!finishReason) throw new LlmError('the model stream ended before the turn finished (no finish_reason)', true);
    const toolCalls = [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]): LlmToolCall => {
        if (!c.name) throw new LlmError(`the model streamed tool call #${index} without a function name`);
        return {
          id: c.id || `call_${index}`,
          name: c.name,
          rawArguments: c.arguments,
          args: parseToolArguments(c.name, c.arguments),
        };
      });
    return { content, toolCalls, usage };
  }
}
