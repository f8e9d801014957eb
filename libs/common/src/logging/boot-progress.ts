import { pino } from 'pino';
import { logDestination } from './log-destination.js';

/** Says what a boot step is doing, e.g. `progress('Database', 'Applying 60 migrations…')`. */
export type BootProgress = (context: string, message: string) => void;

/**
 * Nest holds its logs back until the application is built (bufferLogs), so a slow boot step (the embedded database's
 * first start, migrations) would run in silence. This logger writes at once, in the same format as the app's logs
 * (compact on a terminal, JSON lines otherwise) and at the same level.
 */
export function bootProgress(config: { prettyLogs: boolean; logLevel: string }): BootProgress {
  const logger = pino({ level: config.logLevel }, logDestination(config.prettyLogs, config.logLevel));
  return (context, message) => logger.info({ context }, message);
}
