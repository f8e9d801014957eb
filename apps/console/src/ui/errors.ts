import { notifications } from '@mantine/notifications';
import { ApiError } from '../api/client';

/** An error toast that says what went wrong and, where we know it, what to do. */
export function toastError(title: string, err: unknown): void {
  const e = err instanceof ApiError ? err : null;
  const hint = e?.status === 403 ? ' Ask an admin of your organisation.' : e?.status === 409 ? ' Reload to see its current state.' : '';
  notifications.show({ color: 'red', title, message: `${e ? e.message : String(err)}${hint}` });
}
