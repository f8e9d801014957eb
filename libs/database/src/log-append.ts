import type { DataSource } from 'typeorm';
import type { DatabaseTarget } from './data-source.js';
import type { AppendOptions, EventBatch, EventLogTables, LoggedEvent } from './event-log.types.js';
import type { LogFollowParts } from './log-follow.js';
import { ownerWriteResult, ownerWriteSql, SqlParams, type OwnerWrite, type OwnerWriteResult } from './owner-write.js';

// The writer's side of the log (EventLog.append, appendWith, and the batches of a transaction): each append is one
// statement, numbered under the owner row's lock; once it returns (or its transaction commits) its events reach this
// process's followers from memory, and until then a follower told of them by their NOTIFY waits for it. The reader's
// side is log-follow.ts; other instances' appends reach this one through log-listen.ts.

/** What the appends share with the log's followers in this process, and where they write. */
export interface LogAppendParts extends Pick<LogFollowParts, 'recent' | 'wakeups' | 'appending'> {
  dataSource: DataSource;
  target: DatabaseTarget;
  tables: EventLogTables;
}

/** See EventLog.append. */
export async function appendEvent(
  parts: LogAppendParts,
  ownerId: string,
  type: string,
  data: unknown,
  opts: AppendOptions,
): Promise<number | null> {
  const params = new SqlParams();
  const where =
    opts.epoch === undefined
      ? undefined
      : `lease_epoch = ${params.add(opts.epoch)} AND status IN ('running', 'waiting')`;
  const sql = ownerWriteSql(parts.tables, ownerId, [{ type, data }], { params, where }, !parts.target.embedded);
  const local = !opts.runner;
  if (local) parts.appending.start(ownerId);
  let event: LoggedEvent | undefined;
  try {
    const [row] = (await (opts.runner ?? parts.dataSource).query(sql, params.values)) as Array<Record<string, unknown>>;
    const result = ownerWriteResult(row, 1, {});
    if (result.held) event = { seq: result.seqs[0], type, data, created_at: result.createdAt };
  } finally {
    if (local) appendDone(parts, ownerId, event && [event]);
  }
  if (!event) return null;
  if (opts.batch) {
    // Until its transaction commits (publish) or fails (discard), its NOTIFY may outrun it: followers wait for it.
    if (!opts.batch.owners.has(ownerId)) parts.appending.start(ownerId);
    opts.batch.owners.add(ownerId);
    opts.batch.events.push({ ownerId, event });
  }
  return event.seq;
}

/** See EventLog.appendWith. */
export async function appendEventsWith(
  parts: LogAppendParts,
  ownerId: string,
  events: Array<{ type: string; data: unknown }>,
  write: OwnerWrite,
): Promise<OwnerWriteResult> {
  const sql = ownerWriteSql(parts.tables, ownerId, events, write, !parts.target.embedded);
  parts.appending.start(ownerId);
  let logged: LoggedEvent[] | undefined;
  try {
    const [row] = await parts.dataSource.query<Array<Record<string, unknown>>>(sql, write.params.values);
    const result = ownerWriteResult(row, events.length, write);
    if (result.held)
      logged = events.map((e, i) => ({
        seq: result.seqs[i],
        type: e.type,
        data: e.data,
        created_at: result.createdAt,
      }));
    return result;
  } finally {
    appendDone(parts, ownerId, logged ?? (events.length > 0 ? undefined : []));
  }
}

/** A local append returned: its events (committed) reach local followers from memory; a failure makes them read. */
function appendDone(parts: LogAppendParts, ownerId: string, events: LoggedEvent[] | undefined): void {
  parts.appending.end(ownerId);
  if (!events) {
    parts.wakeups.wake(ownerId, undefined, true);
    return;
  }
  for (const event of events) parts.recent.remember(ownerId, event);
  if (events.length === 0) return;
  const seq = events[events.length - 1].seq;
  parts.appending.returned(ownerId, seq);
  parts.wakeups.wake(ownerId, seq, true);
}

/** See EventLog.willAppend. */
export function batchWillAppend(parts: LogAppendParts, batch: EventBatch, ownerId: string): void {
  if (!batch.owners.has(ownerId)) parts.appending.start(ownerId);
  batch.owners.add(ownerId);
}

/** See EventLog.publish. */
export function publishBatch(parts: LogAppendParts, batch: EventBatch): void {
  for (const ownerId of batch.owners) parts.appending.end(ownerId);
  batch.owners.clear();
  for (const ownerId of batch.born) parts.recent.born(ownerId);
  const last = new Map<string, number>();
  for (const { ownerId, event } of batch.events) {
    parts.recent.remember(ownerId, event);
    last.set(ownerId, Math.max(last.get(ownerId) ?? 0, event.seq));
  }
  for (const [ownerId, seq] of last) {
    parts.appending.returned(ownerId, seq);
    parts.wakeups.wake(ownerId, seq, true);
  }
}

/** See EventLog.discard. */
export function discardBatch(parts: LogAppendParts, batch: EventBatch): void {
  for (const ownerId of batch.owners) {
    parts.appending.end(ownerId);
    parts.wakeups.wake(ownerId, undefined, true);
  }
  batch.owners.clear();
  batch.events.length = 0;
}
