/**
 * A JSON value as text for a label or a cell: objects and arrays as JSON (not "[object Object]"), anything else as
 * String() writes it. Callers decide what null and a missing value show (usually `asText(v ?? '')`).
 */
export function asText(v: unknown): string {
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}
