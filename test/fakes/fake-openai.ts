import type { ServerResponse } from 'node:http';
import { startHttpFake, type HttpFake, type RecordedRequest } from './http-fake.js';

/** One scripted reply of the fake model. */
export interface FakeReply {
  content?: string;
  /** `args` is JSON-encoded; `arguments` is sent verbatim (e.g. malformed JSON). */
  tool_calls?: Array<{ name: string; args?: unknown; arguments?: string; id?: string }>;
  /** Answer with this HTTP error status instead. */
  status?: number;
  /** Never finish the response (after the first chunk when streaming). */
  hang?: boolean;
  /** Wait before answering. */
  delayMs?: number;
  /** Streaming: end the response after the content and tool-call deltas, without a finish_reason or `[DONE]`. */
  truncate?: boolean;
  /** Streaming: a 200 event stream that ends without a single chunk. */
  empty?: boolean;
  /** The usage to report (default: about a token per 4 characters of the request and of the reply); null: none. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
}

export type FakeReplyHandler = (body: ChatRequestBody, index: number) => FakeReply | Promise<FakeReply>;

export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages: Array<{
    role: string;
    content: string | null;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: unknown } }>;
}

export interface FakeOpenAI {
  /** The base URL to configure (`.../v1`). */
  baseUrl: string;
  /** Every chat completion request body, in order. */
  requests: ChatRequestBody[];
  http: HttpFake;
  setHandler(handler: FakeReplyHandler): void;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible chat completions server (POST /v1/chat/completions), streaming (SSE chunks with tool-call
 * deltas split across chunks, then `data: [DONE]`) and non-streaming. Replies come from a per-test handler.
 */
export async function startFakeOpenAI(handler: FakeReplyHandler): Promise<FakeOpenAI> {
  let current = handler;
  const requests: ChatRequestBody[] = [];
  const http = await startHttpFake(async (req: RecordedRequest, res: ServerResponse) => {
    if (req.method !== 'POST' || req.path !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.path}` } }));
      return;
    }
    const body = req.body as ChatRequestBody;
    const index = requests.length;
    requests.push(body);
    const reply = await current(body, index);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.status) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'the fake model server failed', type: 'server_error' } }));
      return;
    }
    const id = `chatcmpl-${index}`;
    const created = Math.floor(Date.now() / 1000);
    const calls = (reply.tool_calls ?? []).map((c, i) => ({
      id: c.id ?? `call_fake_${index}_${i}`,
      name: c.name,
      arguments: c.arguments ?? JSON.stringify(c.args ?? {}),
    }));
    const usage = usageOf(body, reply, calls);
    if (!body.stream) {
      if (reply.hang) return new Promise(() => undefined);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [
            {
              index: 0,
              finish_reason: calls.length ? 'tool_calls' : 'stop',
              message: {
                role: 'assistant',
                content: reply.content ?? (calls.length ? null : ''),
                ...(calls.length
                  ? {
                      tool_calls: calls.map((c) => ({
                        id: c.id,
                        type: 'function',
                        function: { name: c.name, arguments: c.arguments },
                      })),
                    }
                  : {}),
              },
            },
          ],
          ...(usage ? { usage } : {}),
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (reply.empty) return void res.end();
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
      );
    chunk({ role: 'assistant', content: '' });
    if (reply.hang) return new Promise(() => undefined);
    const content = reply.content ?? '';
    for (let i = 0; i < content.length; i += 8) chunk({ content: content.slice(i, i + 8) });
    calls.forEach((c, i) => {
      const half = Math.ceil(c.arguments.length / 2);
      chunk({ tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
      chunk({ tool_calls: [{ index: i, function: { arguments: c.arguments.slice(0, half) } }] });
      chunk({ tool_calls: [{ index: i, function: { arguments: c.arguments.slice(half) } }] });
    });
    if (reply.truncate) return void res.end();
    chunk({}, calls.length ? 'tool_calls' : 'stop');
    // As OpenAI does with stream_options.include_usage: one more chunk, without choices, carrying the usage.
    if (body.stream_options?.include_usage && usage) {
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage })}\n\n`,
      );
    }
    res.write('data: [DONE]\n\n');
    res.end();
  });
  return {
    baseUrl: `${http.url}/v1`,
    requests,
    http,
    setHandler: (h) => (current = h),
    close: () => http.close(),
  };
}

/** The last message of a request of the given role. */
export function lastMessage(body: ChatRequestBody, role: string): string {
  return [...body.messages].reverse().find((m) => m.role === role)?.content ?? '';
}

/** The usage a reply reports: its own, or an estimate (a token per 4 characters) of the request and the reply. */
function usageOf(body: ChatRequestBody, reply: FakeReply, calls: Array<{ name: string; arguments: string }>) {
  if (reply.usage === null) return undefined;
  const estimate = (text: string) => Math.ceil(text.length / 4);
  const { prompt_tokens, completion_tokens } = reply.usage ?? {
    prompt_tokens: estimate(JSON.stringify(body.messages)),
    completion_tokens: estimate((reply.content ?? '') + calls.map((c) => c.name + c.arguments).join('')),
  };
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}
