import {
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Counter } from 'prom-client';
import { DataSource, type EntityManager } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { Metrics } from '../telemetry/metrics.js';
import { AuditTrail } from './audit-trail.service.js';

const BATCH = 200;

interface SinkSettings {
  url: string;
  token?: string;
  maxAttempts: number;
  retryMs: number;
  pollMs: number;
}

/**
 * Forwards audit events to AUDIT_SINK_URL (a SIEM's webhook) as they are written: POST `{ events: [...] }`, in chain
 * order per org. At-least-once: a per-org cursor in the database (`audit_sink_cursors`) moves only after the receiver
 * answered 2xx, so a crash re-sends rather than skips (the `Idempotency-Key` header lets a receiver drop repeats). A
 * batch still refused after AUDIT_SINK_MAX_ATTEMPTS tries is dead-lettered: counted in
 * `warden_audit_sink_dead_letters_total`, logged with its seq range, and passed over so later events keep flowing
 * (the events themselves stay in `audit_events`). Several instances share the work: each org's cursor row is locked
 * by the instance forwarding it.
 */
@Injectable()
export class AuditSink implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AuditSink.name);
  private readonly settings?: SinkSettings;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly deadLetters?: Counter;
  private readonly delivered?: Counter;

  constructor(
    private readonly dataSource: DataSource,
    config: AppConfig,
    private readonly trail: AuditTrail,
    @Optional() metrics?: Metrics,
  ) {
    this.settings = config.auditSink;
    if (metrics) {
      this.deadLetters = new Counter({
        name: 'warden_audit_sink_dead_letters_total',
        help: 'Audit events the AUDIT_SINK_URL receiver refused after every retry',
        registers: [metrics.registry],
      });
      this.delivered = new Counter({
        name: 'warden_audit_sink_events_total',
        help: 'Audit events the AUDIT_SINK_URL receiver accepted',
        registers: [metrics.registry],
      });
    }
  }

  onApplicationBootstrap(): void {
    if (!this.settings) return;
    this.trail.onAppended(() => this.nudge());
    this.timer = setInterval(() => this.nudge(), this.settings.pollMs).unref();
    this.nudge();
  }

  /** Before the database closes: the pass under way finishes its batch (its cursor moves only on success). */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** The sink's settings: a pass runs only when AUDIT_SINK_URL is set (see nudge()). */
  private get sink(): SinkSettings {
    if (!this.settings) throw new Error('the audit sink has no AUDIT_SINK_URL');
    return this.settings;
  }

  /** Starts forwarding now (or once more after the pass under way). */
  nudge(): void {
    if (!this.settings || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.forwardAll().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.nudge();
      }
    });
  }

  /** Forwards until no org has events the receiver has not seen; errors are logged and retried on the next pass. */
  async forwardAll(): Promise<void> {
    try {
      await this.dataSource.query(
        `INSERT INTO audit_sink_cursors (org_id) SELECT org_id FROM audit_chain_heads h
          WHERE NOT EXISTS (SELECT 1 FROM audit_sink_cursors c WHERE c.org_id = h.org_id) ON CONFLICT DO NOTHING`,
      );
      while (!this.stopped && (await this.dataSource.transaction((m) => this.forwardBatch(m)))) {
        /* next batch */
      }
    } catch (err) {
      this.logger.error(`audit sink pass failed, will retry: ${(err as Error).message}`);
    }
  }

  /** One batch of one org whose cursor no other instance holds; false when there is nothing to send. */
  private async forwardBatch(m: EntityManager): Promise<boolean> {
    // This transaction waits on the receiver (retries with backoff) while it holds only its cursor row: the app's
    // idle-in-transaction limit (meant for run transactions of a paused process) does not apply to it.
    await m.query(`SET LOCAL idle_in_transaction_session_timeout = 0`);
    const [cursor] = await m.query<Array<{ org_id: string; seq: string } | undefined>>(
      `SELECT c.org_id::text AS org_id, c.seq::text AS seq
         FROM audit_sink_cursors c JOIN audit_chain_heads h ON h.org_id = c.org_id
        WHERE h.seq > c.seq ORDER BY c.updated_at LIMIT 1 FOR UPDATE OF c SKIP LOCKED`,
    );
    if (!cursor) return false;
    const events: Array<{ seq: string }> = await m.query(
      `SELECT org_id::text AS org_id, seq::text AS seq, kind, action, entity_type, entity_id, actor, occurred_at,
              recorded_at, payload, prev_hash, hash
         FROM audit_events WHERE org_id = $1 AND seq > $2 ORDER BY audit_events.seq LIMIT ${BATCH}`,
      [cursor.org_id, cursor.seq],
    );
    if (events.length === 0) return false;
    const range = `${events[0].seq}-${events[events.length - 1].seq}`;
    const ok = await this.deliver(events, `${cursor.org_id}:${range}`);
    if (ok) this.delivered?.inc(events.length);
    else {
      this.deadLetters?.inc(events.length);
      this.logger.error(
        `audit sink: events ${range} of org ${cursor.org_id} dead-lettered after ${this.sink.maxAttempts} attempts`,
      );
    }
    await m.query(`UPDATE audit_sink_cursors SET seq = $2, updated_at = now() WHERE org_id = $1`, [
      cursor.org_id,
      events[events.length - 1].seq,
    ]);
    return true;
  }

  /** POSTs with exponential backoff; true once the receiver answered 2xx. */
  private async deliver(events: unknown[], key: string): Promise<boolean> {
    const s = this.sink;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': key };
    if (s.token) headers.authorization = `Bearer ${s.token}`;
    const body = JSON.stringify({ events });
    for (let attempt = 1; attempt <= s.maxAttempts; attempt++) {
      try {
        const res = await fetch(s.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
        await res.arrayBuffer().catch(() => undefined);
        if (res.ok) return true;
        this.logger.warn(`audit sink answered ${res.status} (attempt ${attempt}/${s.maxAttempts})`);
      } catch (err) {
        this.logger.warn(`audit sink unreachable (attempt ${attempt}/${s.maxAttempts}): ${(err as Error).message}`);
      }
      if (attempt < s.maxAttempts && !this.stopped)
        await new Promise((r) => setTimeout(r, s.retryMs * 2 ** (attempt - 1)));
    }
    return false;
  }
}
