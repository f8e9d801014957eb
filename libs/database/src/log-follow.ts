import type { AppendsInFlight } from './appends-in-flight.js';
import type { EventFollowers, Follower } from './event-followers.js';
import type { LoggedEvent } from './event-log.types.js';
import type { LogWakeups } from './log-wakeups.js';
import type { RecentEvents } from './recent-events.js';

// One stream following one log (EventLog.follow): the reader's side of the log — replay, then live events, read only
// when memory cannot serve them — apart from the writer's side (appends, batches: log-append.ts).

/** What a follower shares with the log's writers in this process. */
export interface LogFollowParts {
  recent: RecentEvents;
  wakeups: LogWakeups;
  followed: EventFollowers;
  appending: AppendsInFlight;
  /** The events after `last`, from the database (empty when the connection dropped: the next wake-up reads again). */
  read(ownerId: string, last: number): Promise<LoggedEvent[]>;
}

/** See EventLog.follow. */
export async function followLog<T extends LoggedEvent>(
  parts: LogFollowParts,
  ownerId: string,
  afterSeq: number,
  deliver: (event: T) => void,
  isLast: (event: T) => boolean,
  signal: AbortSignal,
): Promise<boolean> {
  // An owner born here whose whole log is in memory needs no first read.
  const known = parts.recent.completeThrough(ownerId);
  const me: Follower = { last: afterSeq, told: Math.max(afterSeq, known ?? 0), mustRead: known === null, dirty: true };
  const onWake = (seq?: number) => {
    if (seq === undefined) me.mustRead = true;
    else if (seq > me.last) me.told = Math.max(me.told, seq);
    else return; // this follower has delivered that event already: nothing to read
    me.dirty = true;
    me.wake?.();
  };
  const onAbort = () => me.wake?.();
  parts.followed.add(ownerId, me);
  parts.wakeups.on(ownerId, onWake);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    while (!signal.aborted) {
      if (!me.dirty) {
        await new Promise<void>((resolve) => (me.wake = resolve));
        me.wake = undefined;
        continue;
      }
      const events = (await nextEvents(parts, ownerId, me)) as T[] | null;
      for (const event of events ?? []) {
        if (event.seq !== me.last + 1) break; // a gap closes when the earlier writer commits (and wakes us)
        me.last = event.seq;
        deliver(event);
        if (isLast(event)) return true;
      }
    }
    return false;
  } finally {
    parts.wakeups.off(ownerId, onWake);
    signal.removeEventListener('abort', onAbort);
    parts.followed.remove(ownerId, me);
  }
}

/** The events a woken follower may deliver: from memory when it can, else read; null when there is nothing to do. */
async function nextEvents(parts: LogFollowParts, ownerId: string, me: Follower): Promise<LoggedEvent[] | null> {
  me.dirty = false;
  const mustRead = me.mustRead;
  me.mustRead = false;
  if (!mustRead && me.told <= me.last) return null; // told of what it has already delivered
  const remembered = mustRead ? null : parts.recent.between(ownerId, me.last, me.told);
  // Told by a NOTIFY that raced our own append's result: that result brings the event to memory and wakes us.
  if (!remembered && !mustRead && parts.appending.has(ownerId)) return null;
  return remembered ?? (await parts.read(ownerId, me.last));
}
