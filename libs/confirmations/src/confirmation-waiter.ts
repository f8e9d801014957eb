import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AppConfig, Metrics, type Bus, OnBus } from '@warden/common';
import { isRunInterruption } from '@warden/hooks';
import { DATABASE_TARGET, PgNotificationListener, type DatabaseTarget } from '@warden/database';
import { ConfirmationDecisionService } from './confirmation-decision.service.js';
import { ConfirmationStore } from './confirmation.store.js';
import {
  CONFIRMATION_NOTIFIED,
  CONFIRMATION_NOTIFY_CHANNEL,
  CONFIRMATION_SETTLED,
  ConfirmationStatus,
  type ConfirmationRequest,
} from './confirmation.types.js';
import {
  LISTENING_POLL_MS,
  MAX_TIMER_MS,
  WaiterClosedError,
  type Listener,
  type Waiting,
} from './confirmation-waiter.types.js';

export { WaiterClosedError };

/**
 * Waits for confirmations to leave `pending`, at the cost of no query per waiter:
 * - a decision taken in this process wakes its waiters in-process (no query at all);
 * - a decision taken on another instance arrives through one dedicated LISTEN connection (payload = id), and the
 *   woken ids are fetched in one batched query;
 * - once per `confirmationPollMs` (at most every 5 s while the LISTEN connection is up: a reconnect polls at once),
 *   one query for all ids being waited on catches anything a notification missed (PGlite has no cross-session
 *   notifications here);
 * - at `expires_at` the row becomes `expired` (only if still pending).
 */
@Injectable()
export class ConfirmationWaiter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ConfirmationWaiter.name);
  private readonly waiting = new Map<string, Waiting>();
  private readonly wakeQueue = new Set<string>();
  private wakeScheduled = false;
  private polling = false;
  private pollTimer?: NodeJS.Timeout;
  private lastPoll = 0;
  private readonly listener: PgNotificationListener | null;
  private closed = false;
  private readonly observers: Array<(payload: string) => void> = [];

  constructor(
    private readonly store: ConfirmationStore,
    private readonly config: AppConfig,
    @Inject(DATABASE_TARGET) target: DatabaseTarget,
    @Inject(EventEmitter2) private readonly bus: Bus,
    private readonly decisions: ConfirmationDecisionService,
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.listener = target.embedded
      ? null
      : new PgNotificationListener({
          url: target.url,
          channel: CONFIRMATION_NOTIFY_CHANNEL,
          applicationName: 'warden-confirmation-waiter',
          logger: this.logger,
          onNotification: (payload) => {
            this.scheduleWake(payload);
            // Another instance's settlement only (a prefixed payload leaves the row pending; an echo is ours).
            if (!payload.includes(':') && !this.store.isOwnSettlement(payload))
              this.bus.emit(CONFIRMATION_NOTIFIED, payload);
            for (const observe of this.observers) observe(payload);
          },
          // Decisions taken while the connection was down were not notified to us.
          onConnected: () => void this.poll(true),
        });
  }

  async onModuleInit(): Promise<void> {
    this.pollTimer = setInterval(() => void this.poll(), this.config.confirmationPollMs);
    this.pollTimer.unref();
    await this.listener?.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearInterval(this.pollTimer);
    for (const [id, w] of this.waiting) {
      clearTimeout(w.deadline);
      this.waiting.delete(id);
      for (const l of w.listeners) l.reject(new WaiterClosedError());
    }
    await this.listener?.stop();
  }

  /** Every payload of the LISTEN connection, shared with the inbox stream (one connection per instance for both). */
  observeNotifications(observe: (payload: string) => void): void {
    this.observers.push(observe);
  }

  /** True while the LISTEN connection is up (false on PGlite, where decisions wake waiters in-process only). */
  get isListening(): boolean {
    return this.listener?.isListening ?? false;
  }

  /** Number of confirmations being waited on in this instance. */
  get waitingCount(): number {
    return this.waiting.size;
  }

  /**
   * Resolves with the row once it is approved, rejected or expired. At `expiresAt` the row is expired (if still
   * pending); when `signal` aborts for a cancel it is expired at once, for an interruption (RunInterruptedError:
   * lease lost, shutdown) the wait ends with that error and the row stays pending. Rejects with WaiterClosedError on
   * shutdown, and with the database error if the expiry could not be written (the row's deadline has passed
   * then, so no later decision can approve it).
   */
  wait(id: string, expiresAt: Date, signal?: AbortSignal): Promise<ConfirmationRequest> {
    if (this.closed) return Promise.reject(new WaiterClosedError());
    return new Promise<ConfirmationRequest>((resolve, reject) => {
      let waiting = this.waiting.get(id);
      if (!waiting) {
        waiting = { expiresAt, deadline: this.armDeadline(id, expiresAt), listeners: new Set() };
        this.waiting.set(id, waiting);
      }
      // A cancel expires the request; an interruption (lease lost, shutdown) only ends this wait: the request stays
      // pending for the run's next driver, and nobody decided anything.
      const onAbort = () =>
        isRunInterruption(signal?.reason)
          ? this.dropListener(id, listener, signal.reason)
          : void this.expire(id, 'system', 'the run was cancelled');
      const listener: Listener = {
        resolve: (row) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(row);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      waiting.listeners.add(listener);
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      // A decision may have committed before this waiter existed (its notification found nobody): look once.
      this.scheduleWake(id);
    });
  }

  /** A row left pending in this process (decision, expiry, delivery failure): wake its waiters without a query. */
  @OnBus(CONFIRMATION_SETTLED)
  onSettled(row: ConfirmationRequest): void {
    this.settleWaiters(row);
  }

  private settleWaiters(row: ConfirmationRequest): void {
    if (row.status === ConfirmationStatus.Pending) return;
    const waiting = this.waiting.get(row.id);
    if (!waiting) return;
    clearTimeout(waiting.deadline);
    this.waiting.delete(row.id);
    if (row.respondedAt) this.metrics?.approvalWake.observe(Math.max(0, Date.now() - row.respondedAt.getTime()) / 1000);
    for (const l of waiting.listeners) l.resolve(row);
  }

  private dropListener(id: string, listener: Listener, err: Error): void {
    const waiting = this.waiting.get(id);
    if (waiting?.listeners.delete(listener) && waiting.listeners.size === 0) {
      clearTimeout(waiting.deadline);
      this.waiting.delete(id);
    }
    listener.reject(err);
  }

  private failWaiters(id: string, err: Error): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    clearTimeout(waiting.deadline);
    this.waiting.delete(id);
    for (const l of waiting.listeners) l.reject(err);
  }

  private armDeadline(id: string, expiresAt: Date): NodeJS.Timeout {
    const ms = Math.max(0, expiresAt.getTime() - Date.now());
    const timer = setTimeout(
      () => {
        if (Date.now() < expiresAt.getTime()) {
          const waiting = this.waiting.get(id);
          if (waiting) waiting.deadline = this.armDeadline(id, expiresAt);
          return;
        }
        void this.expire(id, 'timeout', 'no decision before the deadline');
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    return timer;
  }

  private async expire(id: string, by: string, reason: string): Promise<void> {
    try {
      // The settlement is published in-process and releases the waiters; if someone decided first, read what.
      if (await this.decisions.expire(id, by, reason)) return;
      const row = await this.store.findById(id);
      if (row) this.settleWaiters(row);
      else this.failWaiters(id, new Error(`confirmation ${id} no longer exists`));
    } catch (err) {
      // An audit write that failed after the expiry committed finds no waiter left here: the expiry stands.
      this.logger.error(`could not expire confirmation ${id} or audit its expiry: ${(err as Error).message}`);
      this.failWaiters(id, new Error(`could not record the expiry of confirmation ${id}: ${(err as Error).message}`));
    }
  }

  private scheduleWake(id: string): void {
    if (!this.waiting.has(id)) return;
    this.wakeQueue.add(id);
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    // Notifications and new waiters arriving in the same tick share one query.
    setImmediate(() => void this.flushWakes());
  }

  private async flushWakes(): Promise<void> {
    this.wakeScheduled = false;
    const ids = [...this.wakeQueue].filter((id) => this.waiting.has(id));
    this.wakeQueue.clear();
    if (ids.length === 0) return;
    try {
      for (const row of await this.store.settledAmong(ids, 'wake')) this.settleWaiters(row);
    } catch (err) {
      this.logger.warn(`wake-up query failed (the next poll retries): ${(err as Error).message}`);
    }
  }

  private async poll(now = false): Promise<void> {
    if (this.polling || this.waiting.size === 0) return;
    if (!now && this.isListening && Date.now() - this.lastPoll < LISTENING_POLL_MS) return;
    this.lastPoll = Date.now();
    this.polling = true;
    try {
      for (const row of await this.store.settledAmong([...this.waiting.keys()], 'poll')) this.settleWaiters(row);
    } catch (err) {
      this.logger.warn(`confirmation poll failed: ${(err as Error).message}`);
    } finally {
      this.polling = false;
    }
  }
}
