import type { DataSource } from 'typeorm';

/** Tables whose rows are driven by one instance at a time under a lease (`status`, `locked_by`, `lease_until`). */
export type LeasedTable = 'agent_runs' | 'workflow_runs' | 'evals';

/**
 * Claims active rows whose lease lapsed (their instance died or released them) and takes the lease in the same
 * statement; `FOR UPDATE SKIP LOCKED` keeps two instances from claiming the same row. `exclude` are the ids this
 * process already drives (their lease may lag while the event loop is busy). `claimable` narrows the rows further
 * (SQL on the table's row, e.g. a parked run only once its approval is decided), `set` adds assignments to the claim.
 */
export async function claimExpiredLeases(
  dataSource: DataSource,
  opts: {
    table: LeasedTable;
    instanceId: string;
    leaseMs: number;
    exclude: string[];
    limit: number;
    claimable?: string;
    set?: string;
  },
): Promise<string[]> {
  const [rows]: [Array<{ id: string }>, number] = await dataSource.query(
    `UPDATE ${opts.table} SET locked_by = $1, lease_until = now() + make_interval(secs => $2),
            lease_epoch = lease_epoch + 1${opts.set ? `, ${opts.set}` : ''}
     WHERE id IN (
       SELECT id FROM ${opts.table}
       WHERE status IN ('running', 'waiting') AND (lease_until IS NULL OR lease_until < now())
         AND NOT (id = ANY($3::uuid[]))
         ${opts.claimable ? `AND ${opts.claimable}` : ''}
       ORDER BY lease_until NULLS FIRST
       LIMIT $4
       FOR UPDATE SKIP LOCKED)
     RETURNING id`,
    [opts.instanceId, opts.leaseMs / 1000, opts.exclude, opts.limit],
  );
  return rows.map((r) => r.id);
}

/**
 * How long until a row of `table` may next be claimable, in ms (≤ 0: now), or null when none may ever be without a
 * change (which then says so): the earliest lease expiry of its active rows (`active` narrows them, e.g. not parked),
 * or `alsoDue` (a query selecting one timestamp, e.g. the deadlines of parked rows). Measured on the database's clock.
 */
export async function nextClaimDueInMs(
  dataSource: DataSource,
  opts: { table: LeasedTable; active?: string; alsoDue?: string },
): Promise<number | null> {
  const [row]: Array<{ due_in_ms: number | null }> = await dataSource.query(
    `SELECT (EXTRACT(EPOCH FROM (min(due) - now())) * 1000)::float8 AS due_in_ms FROM (
       SELECT min(COALESCE(lease_until, now())) AS due FROM ${opts.table}
        WHERE status IN ('running', 'waiting') ${opts.active ? `AND ${opts.active}` : ''}
       ${opts.alsoDue ? `UNION ALL (${opts.alsoDue})` : ''}) AS d`,
  );
  return row.due_in_ms;
}
