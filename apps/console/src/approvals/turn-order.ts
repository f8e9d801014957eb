import type { ConfirmationRow } from './Approvals';

/**
 * The calls of one model turn together, in the order the model made them (batch_position), placed where the first of
 * them appears in the list; other rows keep their place.
 */
export function inTurnOrder(rows: ConfirmationRow[]): ConfirmationRow[] {
  const placed = new Set<string>();
  const out: ConfirmationRow[] = [];
  for (const row of rows) {
    if (!row.batch_key) out.push(row);
    else if (!placed.has(row.batch_key)) {
      placed.add(row.batch_key);
      out.push(...turnOf(rows, row));
    }
  }
  return out;
}

/** The pending calls of a row's model turn (the row alone when it has none), in turn order. */
export function turnOf(rows: ConfirmationRow[], row: ConfirmationRow): ConfirmationRow[] {
  if (!row.batch_key) return [row];
  return rows
    .filter((r) => r.batch_key === row.batch_key)
    .sort((a, b) => (a.batch_position ?? 0) - (b.batch_position ?? 0));
}
