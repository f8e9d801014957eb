import { isRunInterruption } from './run-interrupted.js';

export class HookTimeoutError extends Error {
  constructor(hook: string, timeoutMs: number) {
    super(`hook '${hook}' did not finish within ${timeoutMs} ms`);
  }
}

class RunCancelledError extends Error {
  constructor() {
    super('the run was cancelled');
  }
}

/** Races a hook's promise against its timeout and the run's cancellation, aborting the hook's signal on either. */
export function settle<T>(
  pending: PromiseLike<T>,
  entry: { name: string; timeoutMs: number },
  inv: { abort(reason: unknown): void },
  runSignal: AbortSignal | undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const fail = (err: Error) => {
      cleanup();
      inv.abort(err);
      reject(err);
    };
    // An interruption (lease lost, shutdown) keeps its reason: the hook must not take it for a cancel.
    const onCancel = () => fail(isRunInterruption(runSignal?.reason) ? runSignal.reason : new RunCancelledError());
    const timer =
      Number.isFinite(entry.timeoutMs) && entry.timeoutMs > 0
        ? setTimeout(() => fail(new HookTimeoutError(entry.name, entry.timeoutMs)), entry.timeoutMs)
        : undefined;
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      runSignal?.removeEventListener('abort', onCancel);
    };
    if (runSignal?.aborted) {
      onCancel();
      return;
    }
    runSignal?.addEventListener('abort', onCancel, { once: true });
    pending.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (err: unknown) => {
        cleanup();
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the hook's own rejection, as is
        reject(err);
      },
    );
  });
}
