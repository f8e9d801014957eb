import { destination, type DestinationStream } from 'pino';
import { compactLogLine, shownOnTerminal, type LogRecord } from './compact-log-line.js';

/**
 * Where logs go: JSON lines for machines, compact lines (compactLogLine) for a person at a terminal. Both are written
 * synchronously, so that the start banner printed after boot stays the last thing on the screen. On a terminal, Nest's
 * wiring report is left out below LOG_LEVEL=debug (shownOnTerminal).
 */
export function logDestination(compact: boolean, logLevel = 'info'): DestinationStream {
  const stdout = destination({ dest: 1, sync: true });
  if (!compact) return stdout;
  return {
    write(chunk: string) {
      for (const json of chunk.split('\n')) {
        const record = json ? (JSON.parse(json) as LogRecord) : undefined;
        if (record && shownOnTerminal(record, logLevel)) stdout.write(`${compactLogLine(record, { colors: true })}\n`);
      }
    },
  };
}
