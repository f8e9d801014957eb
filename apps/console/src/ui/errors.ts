import { notifications } from '@mantine/notifications';
import { ApiError } from '../api/client';
import { whatToDo } from './what-to-do';

/** An error toast that says what went wrong (the server's message) and what to do next. */
export function toastError(title: string, err: unknown): void {
  const e = err instanceof ApiError ? err : null;
  const hint = whatToDo(e?.status, err);
  const what = e ? e.message : String((err as { message?: unknown } | null | undefined)?.message ?? err);
  notifications.show({ color: 'red', title, message: `${what}${hint ? `. ${hint}` : ''}` });
}
