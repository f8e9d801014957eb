/**
 * The next step a person can take after a failed request, added to the server's message (which says what went wrong).
 * Pure and free of browser APIs, so it is unit-tested on its own.
 */
export function whatToDo(status: number | undefined, error: unknown): string {
  if (status === undefined) {
    // fetch() rejects with a TypeError when the server cannot be reached at all.
    return error instanceof TypeError
      ? 'The server cannot be reached: check your connection, then try again.'
      : 'Try again; if it keeps failing, reload the page.';
  }
  if (status === 400) return 'Correct what the message names, then try again.';
  if (status === 401) return 'Your session has ended: sign in again.';
  if (status === 403) return 'Ask an admin of your organisation.';
  if (status === 404) return 'It may have been deleted, or belong to another organisation: reload the list.';
  if (status === 409) return 'Reload to see its current state.';
  if (status === 422) return "An admin must fix the agent's configuration (Agents) before it can run.";
  if (status === 429) return 'Wait a moment, then try again.';
  if (status >= 500) return 'Try again in a moment; if it keeps failing, tell an admin the time it happened.';
  return '';
}
