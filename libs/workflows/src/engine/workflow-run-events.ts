import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { WorkflowRunEventMap, WorkflowRunEventType } from '@warden/common';
import {
  DATABASE_TARGET,
  EventLog,
  type ActivityListener,
  type AppendOptions,
  type DatabaseTarget,
  type StoredEvent,
} from '@warden/database';
import { DataSource } from 'typeorm';

/** A stored workflow run event: narrow it by `type` to read its payload. */
export type StoredWorkflowRunEvent = StoredEvent<WorkflowRunEventMap>;

/** A workflow run's event log (`workflow_run_events`), replayable and followed live on any instance. */
@Injectable()
export class WorkflowRunEvents implements OnModuleInit, OnModuleDestroy {
  private readonly log: EventLog<WorkflowRunEventMap>;

  constructor(dataSource: DataSource, @Inject(DATABASE_TARGET) target: DatabaseTarget) {
    this.log = new EventLog(
      dataSource,
      target,
      { events: 'workflow_run_events', owners: 'workflow_runs', channel: 'workflow_run_events' },
      new Logger(WorkflowRunEvents.name),
    );
  }

  onModuleInit(): Promise<void> {
    return this.log.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.log.stop();
  }

  async append<K extends WorkflowRunEventType>(runId: string, type: K, data: WorkflowRunEventMap[K]): Promise<void> {
    if ((await this.log.append(runId, type, data)) === null) throw new Error(`workflow run ${runId} does not exist`);
  }

  /** Appends only while the run is active at `opts.epoch` (false otherwise), and/or in `opts.runner`'s transaction. */
  async appendIf<K extends WorkflowRunEventType>(
    runId: string,
    type: K,
    data: WorkflowRunEventMap[K],
    opts: AppendOptions,
  ): Promise<boolean> {
    return (await this.log.append(runId, type, data, opts)) !== null;
  }

  wake(runId: string): void {
    this.log.wake(runId);
  }

  /**
   * Calls `listener` on any workflow run's event, here or elsewhere
   * (see EventLog.onActivity: `own` for this process's own appends).
   */
  onActivity(listener: ActivityListener): void {
    this.log.onActivity(listener);
  }

  /** Replays after `afterSeq`, then live, until the run's `done` (true) or until `signal` aborts (false). */
  follow(
    runId: string,
    afterSeq: number,
    deliver: (event: StoredWorkflowRunEvent) => void,
    signal: AbortSignal,
  ): Promise<boolean> {
    return this.log.follow(runId, afterSeq, deliver, (e) => e.type === 'done', signal);
  }
}
