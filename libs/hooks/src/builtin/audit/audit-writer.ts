import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { appendAuditEvents, AuditTrail, isUuid, Metrics } from '@warden/common';
import { connectorCallEvent, logRowsInOrder } from './connector-call-event.js';
import { insertConnectorCallLogs, type AuditRow } from './connector-call-log-insert.js';

export type { AuditRow } from './connector-call-log-insert.js';

export interface AuditWriterOptions {
  /** Rows per INSERT; a full buffer is flushed at once. */
  batchSize: number;
  /** A partly filled buffer is flushed this long after its first row. */
  flushIntervalMs: number;
  /** Above this many unwritten rows, record() makes its caller wait for a flush (memory stays bounded). */
  maxBuffered: number;
  /** Wait before retrying after the database refused a batch for a transient reason. */
  retryDelayMs: number;
}

export const AUDIT_WRITER_OPTIONS = Symbol('AUDIT_WRITER_OPTIONS');

const DEFAULTS: AuditWriterOptions = { batchSize: 500, flushIntervalMs: 200, maxBuffered: 20_000, retryDelayMs: 1_000 };
const SHUTDOWN_ATTEMPTS = 5;

/**
 * Buffers audit rows and writes them in batches: one multi-row INSERT per flush, when the buffer reaches
 * `batchSize` or `flushIntervalMs` after its first row. The same transaction appends each row's event to its org's
 * hash chain (`audit_events`, see appendAuditEvents), so the chain holds exactly the calls the log holds. At shutdown
 * everything buffered is written before the database connection closes, so no recorded call is lost.
 */
@Injectable()
export class AuditWriter implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(AuditWriter.name);
  private readonly options: AuditWriterOptions;
  private buffer: AuditRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private closing = false;
  /** Counters for tests and the benchmark. */
  readonly stats = { inserts: 0, rowsWritten: 0, rowsDropped: 0 };

  constructor(
    private readonly dataSource: DataSource,
    @Optional() @Inject(AUDIT_WRITER_OPTIONS) options?: Partial<AuditWriterOptions>,
    @Optional() private readonly metrics?: Metrics,
    @Optional() private readonly trail?: AuditTrail,
  ) {
    this.options = { ...DEFAULTS, ...options };
    metrics?.gauge('warden_audit_queue_depth', 'Audit rows recorded but not yet written', () =>
      Promise.resolve(this.buffer.length),
    );
  }

  private get isFlushing(): boolean {
    return this.flushing !== null;
  }

  get pending(): number {
    return this.buffer.length;
  }

  /**
   * Queues a row. Returns a promise only when the buffer is over `maxBuffered` (the caller then waits for the
   * database to catch up); otherwise it costs no I/O on the caller's path.
   */
  record(row: AuditRow): Promise<void> | undefined {
    // A row without its org can never be shown to anyone (every read is org-scoped); refuse it visibly, here.
    if (!isUuid(row.orgId)) throw new Error(`audit row has no valid org id (${JSON.stringify(row.orgId)})`);
    this.buffer.push(row);
    if (this.closing || this.buffer.length >= this.options.batchSize) {
      const flushed = this.flush();
      return this.buffer.length >= this.options.maxBuffered ? flushed : undefined;
    }
    if (!this.timer) this.schedule(this.options.flushIntervalMs);
    return undefined;
  }

  /** Writes everything buffered so far (batch by batch); never rejects — failures are logged and retried. */
  flush(): Promise<void> {
    this.clearTimer();
    this.flushing ??= this.flushLoop().then((written) => {
      this.flushing = null;
      if (this.buffer.length === 0) return;
      // After a failure, drain() paces the retries at shutdown; otherwise the timer does.
      if (!written) this.schedule(this.closing ? null : this.options.retryDelayMs);
      else if (this.closing || this.buffer.length >= this.options.batchSize) void this.flush();
      else this.schedule(this.options.flushIntervalMs);
    });
    return this.flushing;
  }

  /** Stops batching (every new row is written at once) and writes what is buffered. */
  async drain(): Promise<void> {
    this.closing = true;
    for (let attempt = 1; attempt <= SHUTDOWN_ATTEMPTS; attempt++) {
      while (this.flushing) await this.flushing;
      if (this.buffer.length === 0) return;
      await this.flush();
      // Read through a getter: the flush just awaited may have started another one.
      if (this.buffer.length === 0 && !this.isFlushing) return;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
    if (this.buffer.length > 0) {
      this.logger.error(`${this.buffer.length} audit rows could not be written before shutdown`);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  /** Rows recorded by calls that finished while the HTTP server was closing. */
  async onApplicationShutdown(): Promise<void> {
    if (this.buffer.length === 0 && !this.flushing) return;
    if (this.dataSource.isInitialized) await this.drain();
    else this.logger.error(`${this.buffer.length} audit rows recorded after the database closed were not written`);
  }

  private schedule(delayMs: number | null): void {
    this.clearTimer();
    if (delayMs !== null) this.timer = setTimeout(() => void this.flush(), delayMs).unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** false when the database refused a batch for a transient reason (the rows are back in the buffer). */
  private async flushLoop(): Promise<boolean> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.options.batchSize);
      try {
        await this.insert(batch);
      } catch (err) {
        if (isDataError(err)) {
          await this.insertOneByOne(batch);
          continue;
        }
        // Connection lost, database restarting...: keep the rows, in order, and try again later.
        this.buffer.unshift(...batch);
        this.logger.error(`audit batch of ${batch.length} rows not written, will retry: ${(err as Error).message}`);
        return false;
      }
    }
    return true;
  }

  /** A row the database rejects must not take its whole batch with it. */
  private async insertOneByOne(batch: AuditRow[]): Promise<void> {
    for (const row of batch) {
      try {
        await this.insert([row]);
      } catch (err) {
        this.stats.rowsDropped++;
        this.logger.error(
          `audit row for ${row.tool} (run ${row.runId}, call ${row.callId}) ` +
            `rejected by the database: ${(err as Error).message}`,
        );
      }
    }
  }

  /** The rows and their hash-chained audit events commit together: the chain has every call the log has. */
  private async insert(rows: AuditRow[]): Promise<void> {
    const stopTimer = this.metrics?.auditFlush.startTimer();
    const chained = await this.dataSource.transaction(async (m) => {
      const written = await insertConnectorCallLogs(m, rows);
      const logRows = logRowsInOrder(rows, written);
      return appendAuditEvents(
        m,
        rows.map((r, i) => connectorCallEvent(r, logRows[i])),
      );
    });
    this.trail?.appended(chained);
    stopTimer?.();
    this.stats.inserts++;
    this.stats.rowsWritten += rows.length;
  }
}

/** SQLSTATE classes 22 (data exception) and 23 (integrity violation): retrying the same rows cannot succeed. */
function isDataError(err: unknown): boolean {
  const code =
    (err as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code ?? (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}
