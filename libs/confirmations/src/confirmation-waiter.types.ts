import type { ConfirmationRequest } from './confirmation.types.js';

/** The instance is shutting down: the request stays pending, and the run is resumed from its checkpoint. */
export class WaiterClosedError extends Error {
  constructor() {
    super('this server instance is shutting down; the approval request stays pending');
    this.name = 'WaiterClosedError';
  }
}

/** One wait on a confirmation. */
export interface Listener {
  resolve(row: ConfirmationRequest): void;
  reject(err: Error): void;
}

/** Everything waiting on one confirmation: its deadline timer and its listeners. */
export interface Waiting {
  expiresAt: Date;
  deadline: NodeJS.Timeout;
  listeners: Set<Listener>;
}

// setTimeout overflows above 2^31-1 ms (~24.8 days); longer deadlines are re-armed when the timer fires.
export const MAX_TIMER_MS = 2_147_483_647;
/** While the LISTEN connection is up, decisions arrive as notifications: the safety-net poll runs this seldom. */
export const LISTENING_POLL_MS = 5_000;
