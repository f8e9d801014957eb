import type { Logger } from '@nestjs/common';
import type { DatabaseTarget } from './data-source.js';
import type { EventLogTables } from './event-log.types.js';
import type { LogFollowParts } from './log-follow.js';
import { PgNotificationListener } from './pg-notification-listener.js';

// How other instances' appends reach this one's followers: one LISTEN connection per instance and log (PostgreSQL
// only: PGlite has no cross-session notifications here), told apart from the NOTIFY echo of this process's own appends.

/** What the LISTEN side of a log shares with its followers and writers in this process. */
export type LogListenParts = Pick<LogFollowParts, 'recent' | 'wakeups' | 'followed' | 'appending'>;

/** The LISTEN connection of a log, or null when embedded (nothing to listen to). */
export function listenToLog(
  target: DatabaseTarget,
  tables: EventLogTables,
  logger: Logger,
  parts: LogListenParts,
): PgNotificationListener | null {
  if (target.embedded) return null;
  return new PgNotificationListener({
    url: target.url,
    channel: tables.channel,
    applicationName: `warden-${tables.channel}`,
    logger,
    onNotification: (payload) => notified(parts, payload),
    onConnected: () => reconnected(parts),
  });
}

/** The payload is `<owner id>:<event number>`: a follower already past that number does not read again. */
function notified(parts: LogListenParts, payload: string): void {
  const at = payload.lastIndexOf(':');
  const ownerId = at < 0 ? payload : payload.slice(0, at);
  const seq = at < 0 ? undefined : Number(payload.slice(at + 1));
  // One of our own appends not yet returned may be what this tells of: memory gets it then (a gap reads).
  if (!parts.followed.has(ownerId) && !parts.appending.has(ownerId)) parts.recent.noticed(ownerId, seq);
  parts.wakeups.wake(ownerId, seq, parts.appending.isOwn(ownerId, seq));
}

/** Events appended elsewhere while the connection was down were not notified to us: wake every follower. */
function reconnected(parts: LogListenParts): void {
  parts.recent.noneComplete();
  for (const name of parts.wakeups.eventNames())
    if (typeof name === 'string') parts.wakeups.wake(name, undefined, false);
}
