import { EventEmitter } from 'node:events';

const ACTIVITY = Symbol('activity');

/**
 * The wake-ups of an event log's followers, one event name per owner (payload: the event number, or none: read), and
 * `onActivity`: every wake-up of any owner — an append here, a notification from elsewhere, a reconnect that may have
 * missed some — which is what run recovery arms its next sweep on.
 */
export class LogWakeups extends EventEmitter {
  constructor() {
    super();
    this.setMaxListeners(0);
  }

  override emit(name: string | symbol, ...args: unknown[]): boolean {
    const woke = super.emit(name, ...args);
    if (name !== ACTIVITY) super.emit(ACTIVITY);
    return woke;
  }

  onActivity(listener: () => void): void {
    this.on(ACTIVITY, listener);
  }
}
