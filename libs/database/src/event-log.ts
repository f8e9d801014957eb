import type { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { DatabaseTarget } from './data-source.js';
import { AppendsInFlight } from './appends-in-flight.js';
import { EventFollowers } from './event-followers.js';
import { followLog, type LogFollowParts } from './log-follow.js';
import { LogWakeups, type ActivityListener } from './log-wakeups.js';
import { listenToLog } from './log-listen.js';
import type { PgNotificationListener } from './pg-notification-listener.js';
import { ownerWriteResult, ownerWriteSql, SqlParams, type OwnerWrite, type OwnerWriteResult } from './owner-write.js';
import { RecentEvents } from './recent-events.js';
import type {
  AnyEventMap,
  AppendOptions,
  EventBatch,
  EventLogTables,
  LoggedEvent,
  StoredEvent,
} from './event-log.types.js';
import { isTransientDatabaseError } from './transient-error.js';

export * from './event-log.types.js';
export * from './owner-write.js';
export type { ActivityListener } from './log-wakeups.js';

/**
 * An append-only, numbered event log per run that can be replayed and followed live. An event is written (numbered
 * 1, 2, 3... per run under the owner row's lock, NOTIFY sent at commit) before anyone is told about it; followers are
 * woken in-process by local writers and through one LISTEN connection per instance by writers elsewhere (PostgreSQL
 * only: PGlite has no cross-session notifications here). A replay and a live stream therefore tell the same story.
 *
 * What following costs: an event appended by this process outside a transaction reaches local followers from memory
 * (no read); other wake-ups read once per follower; and while no LISTEN connection is up (embedded, or between a
 * drop and its reconnect, which wakes every follower) one safety-net query per instance and `sweepMs` covers every
 * followed log at once (`WHERE id = ANY($1)`), waking only those that moved — nothing polls per stream.
 */
export class EventLog<M = AnyEventMap, E = unknown> {
  private readonly wakeups = new LogWakeups();
  private readonly followed: EventFollowers;
  private readonly recent = new RecentEvents((ownerId) => this.followed.has(ownerId));
  private readonly appending = new AppendsInFlight();
  private readonly listener: PgNotificationListener | null;
  private readonly followParts: LogFollowParts;

  constructor(
    private readonly dataSource: DataSource,
    private readonly target: DatabaseTarget,
    private readonly tables: EventLogTables,
    private readonly logger: Logger,
    sweepMs = 5_000,
  ) {
    this.followed = new EventFollowers(
      dataSource,
      tables.owners,
      logger,
      sweepMs,
      (ownerId) => this.recent.forget(ownerId),
      (ownerId, seq) => this.wakeups.wake(ownerId, seq, false),
      () => !this.listener?.isListening,
    );
    this.followParts = {
      recent: this.recent,
      wakeups: this.wakeups,
      followed: this.followed,
      appending: this.appending,
      read: (ownerId, last) => this.read(ownerId, last),
    };
    this.listener = listenToLog(target, tables, logger, this.followParts);
  }

  /** Calls `listener` on every append here, notification from elsewhere, and reconnect (see LogWakeups). */
  onActivity(listener: ActivityListener): void {
    this.wakeups.onActivity(listener);
  }

  start(): Promise<void> {
    return this.listener?.start() ?? Promise.resolve();
  }

  /** Streams following a log right now (a gauge in /metrics). */
  get followers(): number {
    return this.followed.count;
  }

  stop(): Promise<void> {
    this.followed.stopSweeping();
    return this.listener?.stop() ?? Promise.resolve();
  }

  /**
   * Returns the event's number, or null when the owner row does not exist — or, with `epoch`, when the owner is no
   * longer active at that lease epoch (a driver that lost its run writes nothing). With `runner` (a transaction's
   * manager) the event commits with that transaction; the caller then calls `wake()` after the commit.
   */
  async append<K extends keyof M & string>(
    ownerId: string,
    type: K,
    data: M[K] & E,
    opts: AppendOptions = {},
  ): Promise<number | null> {
    const params = new SqlParams();
    const where =
      opts.epoch === undefined
        ? undefined
        : `lease_epoch = ${params.add(opts.epoch)} AND status IN ('running', 'waiting')`;
    const sql = ownerWriteSql(this.tables, ownerId, [{ type, data }], { params, where }, !this.target.embedded);
    const local = !opts.runner;
    if (local) this.appending.start(ownerId);
    let event: LoggedEvent | undefined;
    try {
      const [row] = (await (opts.runner ?? this.dataSource).query(sql, params.values)) as Array<
        Record<string, unknown>
      >;
      const result = ownerWriteResult(row, 1, {});
      if (result.held) event = { seq: result.seqs[0], type, data, created_at: result.createdAt };
    } finally {
      if (local) this.appendDone(ownerId, event && [event]);
    }
    if (!event) return null;
    if (opts.batch) {
      // Until its transaction commits (publish) or fails (discard), its NOTIFY may outrun it: followers wait for it.
      if (!opts.batch.owners.has(ownerId)) this.appending.start(ownerId);
      opts.batch.owners.add(ownerId);
      opts.batch.events.push({ ownerId, event });
    }
    return event.seq;
  }

  /**
   * One statement, committed when it returns: the owner row's update (`write.set`, fenced by `write.where`), its new
   * `events` and the other writes of `write`, all or (owner fenced off) nothing — one round trip instead of a
   * transaction of several. The events then reach local followers from memory.
   */
  async appendWith(
    ownerId: string,
    events: Array<{ type: string; data: unknown }>,
    write: OwnerWrite,
  ): Promise<OwnerWriteResult> {
    const sql = ownerWriteSql(this.tables, ownerId, events, write, !this.target.embedded);
    this.appending.start(ownerId);
    let logged: LoggedEvent[] | undefined;
    try {
      const [row] = await this.dataSource.query<Array<Record<string, unknown>>>(sql, write.params.values);
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
      this.appendDone(ownerId, logged ?? (events.length > 0 ? undefined : []));
    }
  }

  /** A local append returned: its events (committed) reach local followers from memory; a failure makes them read. */
  private appendDone(ownerId: string, events: LoggedEvent[] | undefined): void {
    this.appending.end(ownerId);
    if (!events) {
      this.wakeups.wake(ownerId, undefined, true);
      return;
    }
    for (const event of events) this.recent.remember(ownerId, event);
    if (events.length === 0) return;
    const seq = events[events.length - 1].seq;
    this.appending.returned(ownerId, seq);
    this.wakeups.wake(ownerId, seq, true);
  }

  /**
   * A write of `ownerId`'s events outside `append` (e.g. a run inserted with its first event) is about to be sent: its
   * NOTIFY may outrun its result, so until `publish(batch)` or `discard(batch)` followers wait for it and the
   * notification counts as this process's own.
   */
  willAppend(batch: EventBatch, ownerId: string): void {
    if (!batch.owners.has(ownerId)) this.appending.start(ownerId);
    batch.owners.add(ownerId);
  }

  /** After the transaction of `batch` committed: its events reach local followers from memory. */
  publish(batch: EventBatch): void {
    for (const ownerId of batch.owners) this.appending.end(ownerId);
    batch.owners.clear();
    for (const ownerId of batch.born) this.recent.born(ownerId);
    const last = new Map<string, number>();
    for (const { ownerId, event } of batch.events) {
      this.recent.remember(ownerId, event);
      last.set(ownerId, Math.max(last.get(ownerId) ?? 0, event.seq));
    }
    for (const [ownerId, seq] of last) {
      this.appending.returned(ownerId, seq);
      this.wakeups.wake(ownerId, seq, true);
    }
  }

  /** The transaction of `batch` failed: nothing of it happened; followers stop waiting for it. */
  discard(batch: EventBatch): void {
    for (const ownerId of batch.owners) {
      this.appending.end(ownerId);
      this.wakeups.wake(ownerId, undefined, true);
    }
    batch.owners.clear();
    batch.events.length = 0;
  }

  /** Wakes this instance's followers of `ownerId` (after a transaction that appended events commits). */
  wake(ownerId: string): void {
    this.wakeups.wake(ownerId, undefined, true);
  }

  async list<K extends keyof M & string = keyof M & string>(
    ownerId: string,
    afterSeq = 0,
    types?: K[],
  ): Promise<Array<StoredEvent<M, K, E>>> {
    return this.dataSource.query(
      `SELECT seq, type, data, created_at FROM ${this.tables.events}
        WHERE run_id = $1 AND seq > $2 ${types ? 'AND type = ANY($3)' : ''} ORDER BY seq`,
      types ? [ownerId, afterSeq, types] : [ownerId, afterSeq],
    );
  }

  /**
   * Delivers the events after `afterSeq` in order, then live ones, until `isLast(event)` (returns true) or until
   * `signal` aborts (returns false).
   */
  follow(
    ownerId: string,
    afterSeq: number,
    deliver: (event: StoredEvent<M, keyof M & string, E>) => void,
    isLast: (event: StoredEvent<M, keyof M & string, E>) => boolean,
    signal: AbortSignal,
  ): Promise<boolean> {
    return followLog(this.followParts, ownerId, afterSeq, deliver, isLast, signal);
  }

  private async read(ownerId: string, last: number): Promise<LoggedEvent[]> {
    // A dropped connection only delays the stream: the next wake-up or sweep reads again from `last`.
    return this.list(ownerId, last).catch((err: unknown) => {
      if (isTransientDatabaseError(err)) return [];
      throw err;
    });
  }

  /** The safety net for a missed wake-up: one query for every followed log; wakes those with events not yet seen. */
  sweep(): Promise<void> {
    return this.followed.sweep();
  }
}
