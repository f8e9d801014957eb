import { EventEmitter } from 'node:events';

const ACTIVITY = Symbol('activity');

/** Told of every wake-up: the owner, and whether it is this process's own append (or the NOTIFY echo of one). */
export type ActivityListener = (ownerId: string, own: boolean) => void;

/**
 * The wake-ups of an event log's followers, one event name per owner (payload: the event number, or none: read), and
 * `onActivity`: every wake-up of any owner — an append here, a notification from elsewhere, a reconnect that may have
 * missed some — which is what the recoveries arm their next sweep on (only for others' activity: see `own`).
 */
export class LogWakeups extends EventEmitter {
  constructor() {
    super();
    this.setMaxListeners(0);
  }

  /** Wakes the followers of `ownerId`; `own`: the wake-up is of this process's own append. */
  wake(ownerId: string, seq: number | undefined, own: boolean): void {
    if (seq === undefined) super.emit(ownerId);
    else super.emit(ownerId, seq);
    super.emit(ACTIVITY, ownerId, own);
  }

  onActivity(listener: ActivityListener): void {
    this.on(ACTIVITY, listener);
  }
}
