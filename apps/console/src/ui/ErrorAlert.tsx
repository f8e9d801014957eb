import { Alert } from '@mantine/core';
import { ApiError } from '../api/client';
import { whatToDo } from './what-to-do';

/** A failed request shown in place: what could not be done, the server's message, and the next step. */
export function ErrorAlert({ error, what }: { error: Error | null; what?: string }) {
  if (!error) return null;
  const hint = whatToDo(error instanceof ApiError ? error.status : undefined, error);
  return (
    <Alert color="red" role="alert">
      {what ? `${what}: ` : ''}
      {error.message}
      {hint ? `. ${hint}` : ''}
    </Alert>
  );
}
