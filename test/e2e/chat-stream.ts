import { parseSse, type SseEvent } from './runtime-helpers.js';

/** A chat stream of a server (`ChatStream.open`), read only as far as a test needs, open until `close()`. */
export class ChatStream {
  private readonly decoder = new TextDecoder();
  private text = '';
  private told = 0;

  private constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly abort: AbortController,
  ) {}

  /** POST /api/chat to the server at `baseUrl` (it must answer 200) and keep its SSE stream open. */
  static async open(baseUrl: string, token: string, body: Record<string, unknown>): Promise<ChatStream> {
    const abort = new AbortController();
    const res = await fetch(`${baseUrl}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    return new ChatStream(res.body!.getReader(), abort);
  }

  /** Reads on until an event matches `stopAt`; returns the events read since the last call (and any after it). */
  async until(stopAt: (e: SseEvent) => boolean): Promise<SseEvent[]> {
    for (;;) {
      const events = parseSse(this.text.slice(0, this.text.lastIndexOf('\n\n') + 2)).events.slice(this.told);
      if (events.some(stopAt)) {
        this.told += events.length;
        return events;
      }
      const { value, done } = await this.reader.read();
      if (done) throw new Error(`stream ended before the expected event:\n${this.text}`);
      this.text += this.decoder.decode(value, { stream: true });
    }
  }

  /** Hangs up: the run goes on without this client. */
  close(): void {
    this.abort.abort();
  }
}

/** POST /api/chat and read the stream only until `stopAt` (then hang up: the run goes on without a client). */
export async function chatUntil(
  baseUrl: string,
  token: string,
  body: Record<string, unknown>,
  stopAt: (e: SseEvent) => boolean,
): Promise<SseEvent[]> {
  const stream = await ChatStream.open(baseUrl, token, body);
  try {
    return await stream.until(stopAt);
  } finally {
    stream.close();
  }
}
