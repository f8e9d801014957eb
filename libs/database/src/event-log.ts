import type { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import type { DataSource } from 'typeorm';
import type { DatabaseTarget } from './data-source.js';
import { PgNotificationListener } from './pg-notification-listener.js';
import { isTransientDatabaseError } from './transient-error.js';

export interface StoredEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface AppendOptions {
  /** Append only while the owner row is active at this lease epoch (the writer's fencing token). */
  epoch?: number;
  /** Run the statement on this transaction's manager instead of its own connection. */
  runner?: { query(sql: string, params?: unknown[]): Promise<any> };
}

/** Where a log lives: its events table (owner_id column `run_id`) and the owner table holding the `event_seq` counter. */
export interface EventLogTables {
  events: 'run_events' | 'workflow_run_events';
  owners: 'agent_runs' | 'workflow_runs';
  /** NOTIFY channel; the payload is the owner id. */
  channel: string;
}

/**
 * An append-only, numbered event log per run that can be replayed and followed live. An event is written (numbered
 * 1, 2, 3... per run under the owner row's lock, NOTIFY sent at commit) before anyone is told about it; followers are
 * woken in-process by local writers and through one LISTEN connection per instance by writers elsewhere (PostgreSQL
 * only: PGlite has no cross-session notifications here), with a poll as the safety net. A replay and a live stream
 * therefore tell the same story.
 */
export class EventLog {
  private readonly wakeups = new EventEmitter().setMaxListeners(0);
  /** Streams following a log right now (a gauge in /metrics). */
  followers = 0;
  private readonly listener: PgNotificationListener | null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly target: DatabaseTarget,
    private readonly tables: EventLogTables,
    logger: Logger,
  ) {
    this.listener = target.embedded ? null : new PgNotificationListener({
      url: target.url, channel: tables.channel, applicationName: `warden-${tables.channel}`, logger,
      onNotification: (ownerId) => this.wakeups.emit(ownerId),
      // Events appended elsewhere while the connection was down were not notified to us: wake every follower.
      onConnected: () => {
        for (const ownerId of this.wakeups.eventNames()) this.wakeups.emit(ownerId);
      },
    });
  }

  start(): Promise<void> {
    return this.listener?.start() ?? Promise.resolve();
  }

  stop(): Promise<void> {
    return this.listener?.stop() ?? Promise.resolve();
  }

  /**
   * Returns the event's number, or null when the owner row does not exist — or, with `epoch`, when the owner is no
   * longer active at that lease epoch (a driver that lost its run writes nothing). With `runner` (a transaction's
   * manager) the event commits with that transaction; the caller then calls `wake()` after the commit.
   */
  async append(ownerId: string, type: string, data: Record<string, unknown>, opts: AppendOptions = {}): Promise<number | null> {
    const { events, owners, channel } = this.tables;
    const params: unknown[] = [ownerId, type, JSON.stringify(data)];
    const notify = this.target.embedded ? '' : `, pg_notify('${channel}', $${params.push(ownerId)})`;
    const fence = opts.epoch === undefined ? '' : `AND lease_epoch = $${params.push(opts.epoch)} AND status IN ('running', 'waiting')`;
    const rows: Array<{ seq: number }> = await (opts.runner ?? this.dataSource).query(
      `WITH next AS (UPDATE ${owners} SET event_seq = event_seq + 1 WHERE id = $1 ${fence} RETURNING event_seq),
            inserted AS (INSERT INTO ${events} (run_id, seq, type, data) SELECT $1, event_seq, $2, $3 FROM next RETURNING seq)
       SELECT seq${notify} FROM inserted`,
      params,
    );
    if (rows.length === 0) return null;
    if (!opts.runner) this.wakeups.emit(ownerId);
    return rows[0].seq;
  }

  /** Wakes this instance's followers of `ownerId` (after a transaction that appended events commits). */
  wake(ownerId: string): void {
    this.wakeups.emit(ownerId);
  }

  async list(ownerId: string, afterSeq = 0, types?: string[]): Promise<StoredEvent[]> {
    return this.dataSource.query(
      `SELECT seq, type, data, created_at FROM ${this.tables.events} WHERE run_id = $1 AND seq > $2 ${types ? 'AND type = ANY($3)' : ''} ORDER BY seq`,
      types ? [ownerId, afterSeq, types] : [ownerId, afterSeq],
    );
  }

  /**
   * Delivers the events after `afterSeq` in order, then live ones, until `isLast(event)` (returns true) or until
   * `signal` aborts (returns false).
   */
  async follow(ownerId: string, afterSeq: number, deliver: (event: StoredEvent) => void, isLast: (event: StoredEvent) => boolean, signal: AbortSignal, pollMs = 1000): Promise<boolean> {
    let last = afterSeq;
    this.followers++;
    try {
      while (!signal.aborted) {
        const woken = this.nextWakeup(ownerId, pollMs, signal);
        // A dropped connection only delays the stream: the next wake-up or poll reads again from `last`.
        const events = await this.list(ownerId, last).catch((err: unknown) => {
          if (isTransientDatabaseError(err)) return [];
          throw err;
        });
        for (const event of events) {
          if (event.seq !== last + 1) break; // a gap closes when the earlier writer commits
          last = event.seq;
          deliver(event);
          if (isLast(event)) return true;
        }
        await woken;
      }
      return false;
    } finally {
      this.followers--;
    }
  }

  private nextWakeup(ownerId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeups.off(ownerId, done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeups.once(ownerId, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
