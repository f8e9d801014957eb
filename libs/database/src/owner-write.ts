import type { EventLogTables } from './event-log.types.js';

/** The parameters of one statement, numbered as they are added (`$1`, `$2`, ...). */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    return `$${this.values.push(value)}`;
  }
}

/**
 * What one statement writes besides an owner's new events: assignments on the owner row, the fence on it, and other
 * writes (`name AS (...)` common table expressions). The owner row is updated first (`owner`, locked, re-checked
 * against the fence); every other write must be conditioned on it (`EXISTS (SELECT 1 FROM owner)`), so the
 * statement writes everything or, fenced off, nothing.
 */
export interface OwnerWrite {
  /** Shared by the caller's fragments and the log's own parameters. */
  params: SqlParams;
  /** Extra assignments on the owner row, e.g. `state = $4`. */
  set?: string[];
  /** The fence on the owner row, e.g. `lease_epoch = $5 AND status IN ('running', 'waiting')`. */
  where?: string;
  /**
   * Further writes, in order: [name, a statement with RETURNING for `name AS (...)`];
   * their row counts come back by name.
   */
  ctes?: Array<[string, string]>;
  /** Commits without waiting for its own disk flush (work that is redone after a crash: see RunStore.transaction). */
  redoable?: boolean;
}

export interface OwnerWriteResult {
  /** False when the owner row did not match (absent or fenced off): nothing was written. */
  held: boolean;
  /** The numbers of the appended events, in order. */
  seqs: number[];
  createdAt: Date;
  /** Rows written (or returned) by each named write. */
  counts: Record<string, number>;
}

/** The single statement of an `OwnerWrite` that also appends `events` to the owner's log and notifies its channel. */
export function ownerWriteSql(
  tables: EventLogTables,
  ownerId: string,
  events: Array<{ type: string; data: unknown }>,
  write: OwnerWrite,
  notify: boolean,
): string {
  const p = write.params;
  const id = p.add(ownerId);
  const n = p.add(events.length);
  const sets = (write.set ?? []).map((s) => `, ${s}`).join('');
  const fence = write.where ? `AND ${write.where}` : '';
  const ctes = [
    `owner AS (UPDATE ${tables.owners} SET event_seq = event_seq + ${n}::int${sets}
       WHERE id = ${id} ${fence} RETURNING event_seq)`,
  ];
  if (events.length > 0) {
    const types = p.add(events.map((e) => e.type));
    const datas = p.add(events.map((e) => JSON.stringify(e.data)));
    ctes.push(
      `appended AS (INSERT INTO ${tables.events} (run_id, seq, type, data)
         SELECT ${id}, o.event_seq - ${n}::int + e.ord::int, e.type, e.data
           FROM owner o, unnest(${types}::text[], ${datas}::jsonb[]) WITH ORDINALITY AS e(type, data, ord)
         RETURNING created_at)`,
    );
  }
  for (const [name, sql] of write.ctes ?? []) ctes.push(`${name} AS (${sql})`);
  const selected = [
    `(SELECT event_seq FROM owner) AS last_seq`,
    events.length > 0 ? `(SELECT min(created_at) FROM appended) AS created_at` : `now() AS created_at`,
    ...(write.ctes ?? []).map(([name]) => `(SELECT count(*) FROM ${name})::int AS "${name}"`),
  ];
  if (notify && events.length > 0)
    selected.push(`(SELECT pg_notify('${tables.channel}', ${id} || ':' || event_seq) FROM owner) AS notified`);
  if (write.redoable) selected.push(`set_config('synchronous_commit', 'off', true) AS sync_off`);
  return `WITH ${ctes.join(',\n')}\nSELECT ${selected.join(', ')}`;
}

/** Reads the statement's one row back. */
export function ownerWriteResult(
  row: Record<string, unknown>,
  events: number,
  write: Pick<OwnerWrite, 'ctes'>,
): OwnerWriteResult {
  const last = row.last_seq as number | null;
  const counts: Record<string, number> = {};
  for (const [name] of write.ctes ?? []) counts[name] = Number(row[name] ?? 0);
  return {
    held: last !== null,
    seqs: last === null ? [] : Array.from({ length: events }, (_, i) => last - events + 1 + i),
    createdAt: row.created_at as Date,
    counts,
  };
}
