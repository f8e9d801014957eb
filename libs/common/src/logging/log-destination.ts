import { destination, type DestinationStream } from 'pino';
import { compactLogLine, type LogRecord } from './compact-log-line.js';

/**
 * Where logs go: JSON lines for machines, compact lines (compactLogLine) for a person at a terminal. Both are written
 * synchronously, so that the start banner printed after boot stays the last thing on the screen.
 */
export function logDestination(compact: boolean): DestinationStream {
  const stdout = destination({ dest: 1, sync: true });
  if (!compact) return stdout;
  return {
    write(chunk: string) {
      for (const json of chunk.split('\n')) {
        if (json) stdout.write(`${compactLogLine(JSON.parse(json) as LogRecord, { colors: true })}\n`);
      }
    },
  };
}
