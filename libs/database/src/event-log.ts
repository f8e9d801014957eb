import type { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { DatabaseTarget } from './data-source.js';
import { AppendsInFlight } from './appends-in-flight.js';
import { EventFollowers } from './event-followers.js';
import {
  appendEvent,
  appendEventsWith,
  batchWillAppend,
  discardBatch,
  publishBatch,
  type LogAppendParts,
} from './log-append.js';
import { followLog, type LogFollowParts } from './log-follow.js';
import { LogWakeups, type ActivityListener } from './log-wakeups.js';
import { listenToLog } from './log-listen.js';
import type { PgNotificationListener } from './pg-notification-listener.js';
import type { OwnerWrite, OwnerWriteResult } from './owner-write.js';
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
  private readonly appendParts: LogAppendParts;

  constructor(
    private readonly dataSource: DataSource,
    target: DatabaseTarget,
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
    this.appendParts = {
      recent: this.recent,
      wakeups: this.wakeups,
      appending: this.appending,
      dataSource,
      target,
      tables,
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
  append<K extends keyof M & string>(
    ownerId: string,
    type: K,
    data: M[K] & E,
    opts: AppendOptions = {},
  ): Promise<number | null> {
    return appendEvent(this.appendParts, ownerId, type, data, opts);
  }

  /**
   * One statement, committed when it returns: the owner row's update (`write.set`, fenced by `write.where`), its new
   * `events` and the other writes of `write`, all or (owner fenced off) nothing — one round trip instead of a
   * transaction of several. The events then reach local followers from memory.
   */
  appendWith(
    ownerId: string,
    events: Array<{ type: string; data: unknown }>,
    write: OwnerWrite,
  ): Promise<OwnerWriteResult> {
    return appendEventsWith(this.appendParts, ownerId, events, write);
  }

  /**
   * A write of `ownerId`'s events outside `append` (e.g. a run inserted with its first event) is about to be sent: its
   * NOTIFY may outrun its result, so until `publish(batch)` or `discard(batch)` followers wait for it and the
   * notification counts as this process's own.
   */
  willAppend(batch: EventBatch, ownerId: string): void {
    batchWillAppend(this.appendParts, batch, ownerId);
  }

  /** After the transaction of `batch` committed: its events reach local followers from memory. */
  publish(batch: EventBatch): void {
    publishBatch(this.appendParts, batch);
  }

  /** The transaction of `batch` failed: nothing of it happened; followers stop waiting for it. */
  discard(batch: EventBatch): void {
    discardBatch(this.appendParts, batch);
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
