import type { Response } from 'express';
import { BadInputError } from '../errors/domain.exception.js';

export const KEEPALIVE_MS = 15_000;

/**
 * Starts a `text/event-stream` response and returns a writer of numbered events (`id:` = the event's sequence number,
 * so a client can resume with Last-Event-ID) and a close function. A `: keepalive` comment goes out every 15 s.
 */
export function openEventStream(res: Response): {
  send: (event: { seq: number; type: string; data: unknown }) => void;
  close: () => void;
} {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache, no-transform');
  res.setHeader('connection', 'keep-alive');
  res.setHeader('x-accel-buffering', 'no');
  // The headers leave with the first events when those are at hand (one socket write), else on the loop's next turn.
  setImmediate(() => {
    if (!res.headersSent && !res.writableEnded) res.flushHeaders();
  });
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  // Events delivered together (a transaction's batch) leave in one write to the socket, not one each.
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  return {
    send: (e) => {
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      res.write(`id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
    },
    close: () => {
      clearInterval(keepalive);
      if (!res.writableEnded) res.end();
    },
  };
}

/** The resume point of an event stream: the Last-Event-ID header (or `?last_event_id=`); 0 when absent. */
export function parseLastEventId(header: string | undefined, query?: string): number {
  const raw = header ?? query ?? '0';
  if (!/^\d+$/.test(raw)) throw new BadInputError(`Last-Event-ID must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}
