import type { RunEventData, RunEventType } from '../../../../libs/common/src/run-events/run-event-map';

export interface StreamEvent {
  id: number;
  event: string;
  /** The parsed JSON, or the raw text when it is not JSON: a stream's reader narrows it (see RunStreamEvent). */
  data: unknown;
}

/**
 * An event of a run's stream (`POST /api/chat`, `GET /api/runs/:id/events`), typed by the server's run event map
 * (a type-only import: nothing of the server is bundled): narrow it by `event` to read its `data`.
 */
export type RunStreamEvent = { [K in RunEventType]: { id: number; event: K; data: RunEventData<K> } }[RunEventType];

/** Reads a text/event-stream body, calling `onEvent` for each event as it arrives; resolves when the stream ends. */
export async function readEvents(res: Response, onEvent: (e: StreamEvent) => void): Promise<void> {
  if (!res.body) throw new Error('the event stream has no body');
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n/g, '\n');
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const parsed = parseBlock(block);
      if (parsed) onEvent(parsed);
    }
  }
}

function parseBlock(block: string): StreamEvent | null {
  let id = 0;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue; // keepalive comment
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = Number(value);
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  try {
    return { id, event, data: JSON.parse(data.join('\n')) as unknown };
  } catch {
    return { id, event, data: data.join('\n') };
  }
}
