import type { Writable } from 'node:stream';
import { jsonText } from '../json-text.js';

export type ExportFormat = 'csv' | 'jsonl';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
};

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; objects as JSON. */
function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const text = v instanceof Date ? v.toISOString() : jsonText(v);
  // A leading =, +, - or @ would run as a formula in a spreadsheet: prefixed with ' (OWASP CSV injection).
  const safe = typeof v === 'string' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * Writes pages of rows to `out` as CSV (header line first) or JSON Lines, waiting for `drain` whenever the client is
 * slower than the database, so memory holds one page at most. Stops when the client goes away. Returns rows written.
 */
export async function writeExport<T extends object>(
  out: Writable,
  format: ExportFormat,
  columns: string[],
  pages: AsyncIterable<T[]>,
): Promise<number> {
  let rows = 0;
  const write = async (chunk: string) => {
    if (!out.write(chunk)) await drainedOrClosed(out);
  };
  if (format === 'csv') await write(`${columns.join(',')}\r\n`);
  for await (const page of pages) {
    if (out.destroyed || out.writableEnded) break;
    const text =
      format === 'csv'
        ? page.map((r) => `${columns.map((c) => csvField((r as Record<string, unknown>)[c])).join(',')}\r\n`).join('')
        : page.map((r) => `${JSON.stringify(r)}\n`).join('');
    await write(text);
    rows += page.length;
  }
  if (!out.destroyed && !out.writableEnded) out.end();
  return rows;
}

/** Resolves when the client has taken the buffered data, or went away; leaves no listener behind. */
function drainedOrClosed(out: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}
