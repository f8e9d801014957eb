import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { RunEventData, RunEventEnvelope, RunEventMap, RunEventType } from '@warden/common';
import {
  DATABASE_TARGET,
  EventLog,
  type ActivityListener,
  type AppendOptions,
  type EventBatch,
  type DatabaseTarget,
  type OwnerWrite,
  type OwnerWriteResult,
  type StoredEvent,
} from '@warden/database';
import { DataSource } from 'typeorm';

/** A stored run event (of the types `K`): narrow it by `type` to read its payload. */
export type StoredRunEvent<K extends RunEventType = RunEventType> = StoredEvent<RunEventMap, K, RunEventEnvelope>;

/** NOTIFY channel of appended run events; the payload is the run id. */
export const RUN_EVENTS_NOTIFY_CHANNEL = 'run_events';

/** Where the run event log lives: `run_events`, numbered by `agent_runs.event_seq`. */
export const RUN_EVENT_TABLES = {
  events: 'run_events',
  owners: 'agent_runs',
  channel: RUN_EVENTS_NOTIFY_CHANNEL,
} as const;

/**
 * A run's event log (`run_events`): every SSE event is written here before it is sent, so `GET /api/runs/:id/events`
 * replays exactly what a live stream showed, on any instance.
 */
@Injectable()
export class RunEventsService implements OnModuleInit, OnModuleDestroy {
  private readonly log: EventLog<RunEventMap, RunEventEnvelope>;
  /** Whether appends send NOTIFY (PostgreSQL; not the embedded PGlite). */
  readonly notifies: boolean;

  constructor(dataSource: DataSource, @Inject(DATABASE_TARGET) target: DatabaseTarget) {
    this.notifies = !target.embedded;
    this.log = new EventLog(dataSource, target, RUN_EVENT_TABLES, new Logger(RunEventsService.name));
  }

  onModuleInit(): Promise<void> {
    return this.log.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.log.stop();
  }

  async append<K extends RunEventType>(runId: string, type: K, data: RunEventData<K>): Promise<number> {
    const seq = await this.log.append<K>(runId, type, data);
    if (seq === null) throw new Error(`run ${runId} does not exist`);
    return seq;
  }

  /**
   * Appends only while the run is active at `opts.epoch` (null otherwise), and/or inside `opts.runner`'s
   * transaction.
   */
  appendIf<K extends RunEventType>(
    runId: string,
    type: K,
    data: RunEventData<K>,
    opts: AppendOptions,
  ): Promise<number | null> {
    return this.log.append<K>(runId, type, data, opts);
  }

  /** The run row's update, its new events and other writes in one statement (see EventLog.appendWith). */
  appendWith(
    runId: string,
    events: Array<{ type: RunEventType; data: RunEventData }>,
    write: OwnerWrite,
  ): Promise<OwnerWriteResult> {
    return this.log.appendWith(runId, events, write);
  }

  /** A write of the run's events outside `append` is about to be sent (see EventLog.willAppend). */
  willAppend(batch: EventBatch, runId: string): void {
    this.log.willAppend(batch, runId);
  }

  /** Hands a committed transaction's events to local followers (no read). */
  publish(batch: EventBatch): void {
    this.log.publish(batch);
  }

  /** The transaction of `batch` failed: local followers stop waiting for its events. */
  discard(batch: EventBatch): void {
    this.log.discard(batch);
  }

  /** Wakes local followers after a transaction that appended events committed. */
  wake(runId: string): void {
    this.log.wake(runId);
  }

  list<K extends RunEventType = RunEventType>(
    runId: string,
    afterSeq = 0,
    types?: K[],
  ): Promise<Array<StoredRunEvent<K>>> {
    return this.log.list(runId, afterSeq, types);
  }

  /**
   * Calls `listener` on any run's event, here or elsewhere (see EventLog.onActivity: `own` for this process's own
   * appends).
   */
  onActivity(listener: ActivityListener): void {
    this.log.onActivity(listener);
  }

  /** Event streams of runs being followed by this instance. */
  get followers(): number {
    return this.log.followers;
  }

  /** Replays after `afterSeq`, then live, until this run's own `done` (true) or until `signal` aborts (false). */
  follow(
    runId: string,
    afterSeq: number,
    deliver: (event: StoredRunEvent) => void,
    signal: AbortSignal,
  ): Promise<boolean> {
    return this.log.follow(runId, afterSeq, deliver, (e) => e.type === 'done' && e.data.run_id === runId, signal);
  }
}
