import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DATABASE_TARGET, PgNotificationListener, type DatabaseTarget } from '@warden/database';
import { EventEmitter } from 'node:events';
import { DataSource } from 'typeorm';

export interface StoredRunEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/** NOTIFY channel of appended run events; the payload is the run id. */
export const RUN_EVENTS_NOTIFY_CHANNEL = 'run_events';

/**
 * The run's event log. An event is written to `run_events` (numbered 1, 2, 3... per run under the run row's lock)
 * before anyone is told about it; live readers are woken and read the rows, so a replay and a live stream tell the
 * same story. Writers in this process wake readers in-process; writers in other instances wake them through one
 * LISTEN connection per instance (PostgreSQL only: PGlite has no cross-session notifications here). A poll in
 * `follow` is the safety net for a dropped connection.
 */
@Injectable()
export class RunEventsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RunEventsService.name);
  private readonly wakeups = new EventEmitter().setMaxListeners(0);
  private readonly listener: PgNotificationListener | null;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(DATABASE_TARGET) private readonly target: DatabaseTarget,
  ) {
    this.listener = target.embedded ? null : new PgNotificationListener({
      url: target.url, channel: RUN_EVENTS_NOTIFY_CHANNEL, applicationName: 'warden-run-events', logger: this.logger,
      onNotification: (runId) => this.wakeups.emit(runId),
      // Events appended elsewhere while the connection was down were not notified to us: wake every follower.
      onConnected: () => {
        for (const runId of this.wakeups.eventNames()) this.wakeups.emit(runId);
      },
    });
  }

  async onModuleInit(): Promise<void> {
    await this.listener?.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.listener?.stop();
  }

  async append(runId: string, type: string, data: Record<string, unknown>): Promise<number> {
    // The notification is sent at commit, i.e. once the row is readable by the woken instance.
    const notify = this.target.embedded ? '' : `, pg_notify('${RUN_EVENTS_NOTIFY_CHANNEL}', $4)`;
    const rows: Array<{ seq: number }> = await this.dataSource.query(
      `WITH next AS (UPDATE agent_runs SET event_seq = event_seq + 1 WHERE id = $1 RETURNING event_seq),
            inserted AS (INSERT INTO run_events (run_id, seq, type, data) SELECT $1, event_seq, $2, $3 FROM next RETURNING seq)
       SELECT seq${notify} FROM inserted`,
      this.target.embedded ? [runId, type, JSON.stringify(data)] : [runId, type, JSON.stringify(data), runId],
    );
    if (rows.length === 0) throw new Error(`run ${runId} does not exist`);
    this.wakeups.emit(runId);
    return rows[0].seq;
  }

  async list(runId: string, afterSeq = 0, types?: string[]): Promise<StoredRunEvent[]> {
    return this.dataSource.query(
      `SELECT seq, type, data, created_at FROM run_events WHERE run_id = $1 AND seq > $2 ${types ? 'AND type = ANY($3)' : ''} ORDER BY seq`,
      types ? [runId, afterSeq, types] : [runId, afterSeq],
    );
  }

  /**
   * Delivers the events after `afterSeq` in order, then live ones, until this run's `done` event (returns true) or
   * until `signal` aborts (returns false). The poll is a safety net for a missed notification.
   */
  async follow(runId: string, afterSeq: number, deliver: (event: StoredRunEvent) => void, signal: AbortSignal, pollMs = 1000): Promise<boolean> {
    let last = afterSeq;
    while (!signal.aborted) {
      const woken = this.nextWakeup(runId, pollMs, signal);
      for (const event of await this.list(runId, last)) {
        if (event.seq !== last + 1) break; // a gap closes when the earlier writer commits
        last = event.seq;
        deliver(event);
        if (event.type === 'done' && event.data.run_id === runId) return true;
      }
      await woken;
    }
    return false;
  }

  private nextWakeup(runId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeups.off(runId, done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeups.once(runId, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
