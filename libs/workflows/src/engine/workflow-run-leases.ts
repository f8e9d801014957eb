import { Injectable, Logger } from '@nestjs/common';
import {
  AppConfig,
  type WorkflowNodeEventType,
  type WorkflowRunEventMap,
  type WorkflowRunEventType,
} from '@warden/common';
import { LeaseKeeper } from '@warden/database';
import { RunInterruptedError } from '@warden/hooks';
import { DataSource } from 'typeorm';
import type { WorkflowRun, NodeState } from '../workflow.entity.js';
import { WorkflowRunEvents } from './workflow-run-events.js';

/** The signal of a run this instance no longer drives. */
const DRIVE_OVER = AbortSignal.abort(new RunInterruptedError('this instance no longer drives the workflow run'));

/**
 * This instance's hold on the workflow runs it drives: their leases (renewed together), the fencing epoch each was
 * claimed with, the signal that stops a drive (shutdown, or the lease lost), and the writes made under that epoch.
 * A fenced write that is refused means another driver holds the run: the drive stops without writing anything more.
 */
@Injectable()
export class WorkflowRunLeases {
  private readonly logger = new Logger(WorkflowRunLeases.name);
  private readonly abort = new AbortController();
  private readonly driving = new Map<string, Promise<void>>();
  /**
   * The fencing epoch each driven run was claimed with, the signal that stops its drive (shutdown or lease lost), and
   * its node writes still on their way (`finish` waits for them).
   */
  private readonly fences = new Map<string, Fence>();
  /** One renewal statement per tick for every workflow run this instance drives (as for agent runs). */
  private readonly leases: LeaseKeeper;

  constructor(
    private readonly dataSource: DataSource,
    private readonly runEvents: WorkflowRunEvents,
    private readonly config: AppConfig,
  ) {
    this.leases = new LeaseKeeper(dataSource, 'workflow_runs', config.runLeaseMs, (err) =>
      this.logger.warn(`workflow run lease renewal failed (the next tick retries): ${err.message}`),
    );
  }

  /** Writes for this run from here on are fenced by the epoch it was read with (the claim just set it). */
  fence(run: WorkflowRun): void {
    const lost = new AbortController();
    this.fences.set(run.id, {
      epoch: run.leaseEpoch,
      lost,
      signal: AbortSignal.any([this.abort.signal, lost.signal]),
      writes: new Set(),
    });
  }

  /** Holds the run's lease while `drive` runs; then lets go of the lease and the fence. */
  launch(run: WorkflowRun, drive: () => Promise<void>): void {
    this.leases.hold(run.id, run.leaseEpoch, () => this.lost(run.id));
    const driving = drive().finally(() => {
      this.leases.release(run.id);
      this.driving.delete(run.id);
      // A branch still under way (the run ended without it) stops following its agent run and writes nothing more.
      this.fences.get(run.id)?.lost.abort(new RunInterruptedError(`workflow run ${run.id}: its drive ended`));
      this.fences.delete(run.id);
    });
    this.driving.set(run.id, driving);
  }

  isDriving(runId: string): boolean {
    return this.driving.has(runId);
  }

  drivingIds(): string[] {
    return [...this.driving.keys()];
  }

  get isStopping(): boolean {
    return this.abort.signal.aborted;
  }

  /**
   * Stops on shutdown, once another driver holds the run (this instance was paused past its lease), or once this
   * instance's drive of it is over (aborted for a branch still under way when the run ended).
   */
  signalOf(runId: string): AbortSignal {
    return this.fences.get(runId)?.signal ?? DRIVE_OVER;
  }

  /** Stops this instance's drive of a run that ended elsewhere (cancelled): it writes nothing more. */
  stopDriving(runId: string): void {
    if (this.fences.has(runId)) this.lost(runId);
  }

  /** Stops driving and hands the leases back, so another instance (or this one restarted) continues at once. */
  async releaseAll(): Promise<void> {
    this.abort.abort();
    const ids = this.drivingIds();
    await Promise.allSettled([...this.driving.values()]);
    if (ids.length > 0) {
      await this.dataSource
        .query(`UPDATE workflow_runs SET lease_until = now() WHERE id = ANY($1::uuid[]) AND locked_by = $2`, [
          ids,
          this.config.instanceId,
        ])
        .catch(() => undefined);
    }
  }

  /**
   * Records one node's state (and its event) while this driver holds the run. `run.nodes` changes at once, before the
   * write lands (the drive reads it to start the next nodes), so `finish` waits for the writes under way.
   */
  async setNode(run: WorkflowRun, nodeId: string, state: NodeState, event: WorkflowNodeEventType): Promise<void> {
    // This drive is over (the run ended with this branch under way): an ended run is not changed by a straggler.
    const fence = this.fences.get(run.id);
    if (!fence) throw this.lost(run.id);
    const write = this.writeNode(run, nodeId, state, event);
    fence.writes.add(write);
    try {
      await write;
    } finally {
      fence.writes.delete(write);
    }
  }

  private async writeNode(
    run: WorkflowRun,
    nodeId: string,
    state: NodeState,
    event: WorkflowNodeEventType,
  ): Promise<void> {
    run.nodes = { ...run.nodes, [nodeId]: state };
    const waiting = Object.values(run.nodes).some((s) => s.status === 'waiting');
    run.status = waiting ? 'waiting' : 'running';
    // The stored status is computed from the stored nodes in the same statement, not from `run.nodes`: two writes of
    // parallel branches may commit in the other order than they were computed (a run shown running while it waits).
    const [, updated] = await this.dataSource.query<[unknown, number]>(
      `UPDATE workflow_runs SET nodes = jsonb_set(nodes, $2, $3::jsonb),
         status = CASE WHEN EXISTS (SELECT 1 FROM jsonb_each(jsonb_set(nodes, $2, $3::jsonb)) AS n(id, state)
                                    WHERE n.state->>'status' = 'waiting') THEN 'waiting' ELSE 'running' END,
         updated_at = now()
       WHERE id = $1 AND status IN ('running', 'waiting') AND lease_epoch = $4`,
      [run.id, [nodeId], JSON.stringify(state), this.epochOf(run.id)],
    );
    if (updated === 0) throw this.lost(run.id);
    await this.event(run.id, event, { node_id: nodeId, ...state });
  }

  /**
   * Ends the run. The drive decides from node states set in memory whose writes (and events) may still be on their
   * way — the END node's, say — so those land first: a run never ends with a node shown unfinished, nor its `done`
   * before a node's event. (Without the wait, the end's fenced write refused the END node's: completed, END pending.)
   */
  async finish(run: WorkflowRun, status: 'completed' | 'failed', error: string | null): Promise<void> {
    const writes = this.fences.get(run.id)?.writes;
    if (writes?.size) await Promise.allSettled(writes);
    run.status = status;
    run.error = error;
    // The end and its `done` event commit together, and only while this driver holds the run.
    const won = await this.dataSource.transaction(async (m) => {
      const [rows]: [unknown[], number] = await m.query(
        `UPDATE workflow_runs SET status = $2, error = $3, locked_by = NULL, lease_until = NULL, updated_at = now()
         WHERE id = $1 AND status IN ('running', 'waiting') AND lease_epoch = $4 RETURNING id`,
        [run.id, status, error, this.epochOf(run.id)],
      );
      return (
        rows.length > 0 && this.runEvents.appendIf(run.id, 'done', { run_id: run.id, status, error }, { runner: m })
      );
    });
    if (!won) throw this.lost(run.id);
    this.runEvents.wake(run.id);
  }

  /** Appends one of the run's events while this driver holds it at its epoch. */
  async event<K extends WorkflowRunEventType>(runId: string, type: K, data: WorkflowRunEventMap[K]): Promise<void> {
    if (!(await this.runEvents.appendIf(runId, type, data, { epoch: this.epochOf(runId) }))) throw this.lost(runId);
  }

  private epochOf(runId: string): number {
    return this.fences.get(runId)?.epoch ?? -1;
  }

  /** A fenced write was refused: this driver no longer holds the run; it stops without writing anything more. */
  private lost(runId: string): RunInterruptedError {
    const err = new RunInterruptedError(`workflow run ${runId}: the lease was lost; stopping here`);
    const fence = this.fences.get(runId);
    if (!fence)
      this.logger.debug(
        { workflowRunId: runId },
        'a write after the drive of the run was over: not made (the run has ended, or another driver holds it)',
      );
    else if (!fence.lost.signal.aborted) {
      this.logger.warn(
        { workflowRunId: runId },
        'workflow run lease lost (another driver holds it, or it ended); stopping here',
      );
      fence.lost.abort(err);
    }
    return err;
  }
}

interface Fence {
  epoch: number;
  lost: AbortController;
  signal: AbortSignal;
  /** Node writes under way (setNode): `finish` waits for them. */
  writes: Set<Promise<void>>;
}
