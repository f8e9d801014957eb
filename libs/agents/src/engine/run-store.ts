import { Injectable, Logger } from '@nestjs/common';
import {
  AppConfig,
  type PendingRunEvent,
  type RunEventData,
  type RunEventMap,
  type RunEventType,
} from '@warden/common';
import { EventBatch, ownerWriteResult, ownerWriteSql, SqlParams, type OwnerWriteResult } from '@warden/database';
import { DataSource } from 'typeorm';
import { RUN_EVENT_TABLES, RunEventsService } from '../runs/run-events.service.js';
import { AgentRun, type RunState, type ToolTurnState } from '../runs/run.entity.js';
import type { LiveRun, RunOutcome } from './live-run.js';
import { ancestorsOf, type RunTx, type RunWrite } from './run-ending.js';
import { insertRun, type NewRunFields } from './run-insert.js';
import { RunLeases } from './run-leases.js';
import { LeaseLostError } from './run-fence.js';
import { writeCarryingTurn } from './turn-carry.js';
import { appendToStreams, fencedWrite, leaseLost, setStatus, type RunStreams } from './run-streams.js';
import { isFinal, type ActiveRunStatus } from './run-transitions.js';

export type { RunTx, RunWrite } from './run-ending.js';

/**
 * The SQL of agent runs (like ConfirmationStore for approvals): fenced state and event writes and the park (claims
 * and leases: `leases`, RunLeases; ending a run: RunFinisher, run-finisher.ts). Every write of a driver names its
 * lease epoch; a refused write means the driver lost the run and must stop.
 */
@Injectable()
export class RunStore {
  private readonly logger = new Logger(RunStore.name);

  constructor(
    readonly dataSource: DataSource,
    private readonly events: RunEventsService,
    private readonly config: AppConfig,
    readonly leases: RunLeases,
  ) {}

  /** What the fenced appends of run-streams.ts need of this store (RunFinisher flushes a driver's deferred events). */
  get streams(): RunStreams {
    return { events: this.events, logger: this.logger, runner: this.dataSource };
  }

  /**
   * Runs `fn` in one transaction; the events it appended reach this process's followers from memory after the
   * commit.
   */
  async transaction<T>(fn: (tx: RunTx) => Promise<T>): Promise<T> {
    const batch = new EventBatch();
    try {
      const result = await this.dataSource.transaction((m) => fn({ m, batch }));
      this.events.publish(batch);
      return result;
    } catch (err) {
      this.events.discard(batch);
      throw err;
    }
  }

  /**
   * Records a new run — its conversation when new, its row leased to this instance from birth (epoch 1) and its
   * `run` event — in one statement; the run is born here (its stream is served from memory from event 1).
   */
  insertRun(fields: NewRunFields, opts: { newConversation: boolean; redoable: boolean }): Promise<AgentRun> {
    return insertRun(this.dataSource, this.events, this.config, fields, opts);
  }

  get(runId: string): Promise<AgentRun> {
    return this.dataSource.getRepository(AgentRun).findOneByOrFail({ id: runId });
  }

  async outcome(runId: string): Promise<RunOutcome> {
    const run = await this.get(runId);
    return { runId, status: run.status, answer: run.answer, error: run.error };
  }

  /**
   * Writes the run's new state (and renews its lease) with its deferred events while this driver holds it at its epoch;
   * false when the run already ended (e.g. cancelled) or another driver claimed it since (which then owns the state).
   */
  async saveState(live: LiveRun, state: RunState): Promise<boolean> {
    const p = new SqlParams();
    return (await this.writeRun(live, [], { set: this.stateSets(p, state) }, p)).held;
  }

  /**
   * Parks the live run on its parked calls' approvals, with its state and deferred events, in one statement
   * (RunLeases.parkWrite): 'decided' when one of them already is (the run stays held, to be driven on at once). A
   * decision committed after the park's snapshot finds the run parked and claims it (ParkedRunResumer); if that
   * claim misses it, recovery claims a parked run whose approval is decided or overdue.
   */
  async park(live: LiveRun, state: ToolTurnState): Promise<'parked' | 'decided' | 'lost'> {
    const p = new SqlParams();
    const written = await this.writeRun(live, [], this.leases.parkWrite(p, state), p);
    if (!written.held) return 'lost';
    return written.counts.decided > 0 ? 'decided' : 'parked';
  }

  /** The run row's assignments that save `state` and renew the lease (for `writeRun`). */
  stateSets(p: SqlParams, state: RunState): string[] {
    return [
      `state = ${p.add(JSON.stringify(state))}`,
      `updated_at = now()`,
      `lease_until = now() + make_interval(secs => ${p.add(this.config.runLeaseMs / 1000)})`,
    ];
  }

  /** An event of a run this process just created (unfenced: it holds the run from birth), in `tx`. */
  async appendEvent<K extends RunEventType>(run: AgentRun, type: K, data: RunEventMap[K], tx: RunTx): Promise<void> {
    await this.events.appendIf(
      run.id,
      type,
      { run_id: run.id, surface: run.surface, ...data },
      { runner: tx.m, batch: tx.batch },
    );
  }

  /**
   * The live run's deferred events, then `events`, with `write` (assignments on the run row, other writes conditioned
   * on `owner`), fenced by the driver's epoch: one statement — all of it or, fenced off, nothing (`held` false).
   * A run whose events are copied to its ancestors' streams takes the transaction path (same writes, same order).
   */
  async writeRun(
    live: LiveRun,
    events: PendingRunEvent[],
    write: RunWrite,
    p = new SqlParams(),
  ): Promise<OwnerWriteResult> {
    if (live.turnWrite) await live.turnWrite.catch(() => undefined);
    if (live.turn) return writeCarryingTurn(this, live, live.turn, events, write, p);
    const all = [...live.deferred.splice(0), ...events];
    const { full, to } = fencedWrite(live, write, p);
    if (live.ancestors.length === 0) {
      const envelope = { run_id: live.run.id, surface: live.run.surface };
      return this.events.appendWith(
        live.run.id,
        all.map((e) => ({ type: e.type, data: { ...envelope, ...e.data } })),
        full,
      );
    }
    // The run row first: fenced off (or its precondition unmet), nothing — no event either — is written.
    return this.transaction(async (tx) => {
      const [row] = await tx.m.query<Array<Record<string, unknown>>>(
        ownerWriteSql(RUN_EVENT_TABLES, live.run.id, [], full, false),
        p.values,
      );
      const result = ownerWriteResult(row, 0, write);
      if (!result.held) return result;
      for (const e of all) await this.appendToStreams(live, e.type, e.data, tx);
      if (to && !isFinal(to)) await this.setStatus(live, to, tx);
      return result;
    });
  }

  /** A fenced write of the live run was refused: the driver lost the run; it stops (LeaseLostError). */
  leaseLost(live: LiveRun, why?: string): LeaseLostError {
    return leaseLost(this.logger, live, why);
  }

  /** An event of the live run (fenced) and, like every event of a child run, of its ancestors' streams. */
  appendToStreams<K extends RunEventType>(
    live: LiveRun,
    type: K,
    data: RunEventMap[K],
    tx?: RunTx,
  ): Promise<RunEventData<K>> {
    return appendToStreams(this.streams, live, type, data, tx);
  }

  /** Moves the run (only its holder may) and its ancestors, which show its state, through the transition table. */
  setStatus(live: LiveRun, to: ActiveRunStatus, tx?: RunTx): Promise<void> {
    return setStatus(tx?.m ?? this.dataSource, live, to);
  }

  async ancestorsOf(run: AgentRun): Promise<Array<{ id: string }>> {
    return ancestorsOf(this.dataSource, run);
  }

  activeChildren(runId: string): Promise<Array<{ id: string }>> {
    return this.dataSource.query(
      `SELECT id FROM agent_runs WHERE parent_run_id = $1 AND status IN ('running', 'waiting')`,
      [runId],
    );
  }

  /** Settles once the run's `done` event is written (true), wherever it is driven, or when `signal` aborts (false). */
  waitForDone(runId: string, signal: AbortSignal): Promise<boolean> {
    return this.events.follow(runId, 0, () => undefined, signal);
  }

  /** Lets GET /api/runs/:id name the trace (only written when tracing is on). */
  async recordTraceId(runId: string, traceId: string | null | undefined): Promise<void> {
    await this.dataSource
      .query(`UPDATE agent_runs SET trace_id = $2 WHERE id = $1`, [runId, traceId])
      .catch(() => undefined);
  }
}
