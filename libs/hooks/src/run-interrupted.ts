/**
 * The reason a run's abort signal fires when the run stops in this process but goes on elsewhere: its lease passed
 * to another driver, or the server is shutting down. Unlike a cancel, nothing is decided: a hook waiting on a human
 * (the approval gate) leaves its request pending for the run's next driver instead of expiring it.
 */
export class RunInterruptedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunInterruptedError';
  }
}

/** True when `reason` (an error or an abort signal's reason) is an interruption, not a cancel. */
export function isRunInterruption(reason: unknown): reason is RunInterruptedError {
  return reason instanceof RunInterruptedError;
}
