import type { Response } from 'express';
import type { StoredRunEvent } from './run-events.service.js';

export const KEEPALIVE_MS = 15_000;

/** Starts a `text/event-stream` response and returns a writer for run events plus a stop function. */
export function openEventStream(res: Response): { send(event: StoredRunEvent): void; close(): void } {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache, no-transform');
  res.setHeader('connection', 'keep-alive');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  return {
    send: (e) => res.write(`id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`),
    close: () => {
      clearInterval(keepalive);
      if (!res.writableEnded) res.end();
    },
  };
}
