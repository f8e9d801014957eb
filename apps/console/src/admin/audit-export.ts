import { data, http } from '../api/typed';

export type ExportFormat = 'csv' | 'jsonl';

/** Hands a downloaded body to the browser as a file. */
function saveAs(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Audit trail filters as the server's export and list routes take them. */
export interface TrailQuery {
  from?: string;
  to?: string;
  kind?: 'connector_call' | 'config' | 'confirmation' | 'identity';
  agent_id?: string;
  actor?: string;
}

/**
 * The whole filtered trail as the server streams it (GET /api/audit/events/export), not the rows loaded on screen:
 * fetched with the session's token, then saved.
 */
export async function exportTrail(query: TrailQuery, format: ExportFormat): Promise<void> {
  const blob = await data(
    http.GET('/api/audit/events/export', { params: { query: { ...query, format } }, parseAs: 'blob' }),
  );
  saveAs(`audit-events.${format}`, blob);
}

/** Connector-call filters as /api/audit/connector-calls/export takes them. */
export interface CallsQuery {
  agent_id?: string;
  tool?: string;
  user_id?: string;
  from?: string;
  outcome?: 'blocked' | 'failed' | 'succeeded' | 'in_flight' | 'interrupted';
}

/** The whole filtered connector call log, streamed by the server. */
export async function exportCalls(query: CallsQuery, format: ExportFormat): Promise<void> {
  const blob = await data(
    http.GET('/api/audit/connector-calls/export', { params: { query: { ...query, format } }, parseAs: 'blob' }),
  );
  saveAs(`connector-calls.${format}`, blob);
}

/** A datetime-local value (local time, no zone) as the ISO 8601 instant the server takes; blank stays unset. */
export const isoOf = (local: string): string | undefined => (local ? new Date(local).toISOString() : undefined);
