import { Injectable } from '@nestjs/common';
import { SqlParams } from '@warden/database';
import { inFlightAuditCompletion } from '@warden/hooks';
import { DataSource, type EntityManager } from 'typeorm';
import type { PendingToolCall, ToolCallStatus } from '../runs/run.entity.js';
import type { LiveRun } from './live-run.js';
import { holdsRun, LeaseLostError } from './run-fence.js';

/** A call's outcome as stored: what was sent, what the model reads, and (for the audit row) how the request went. */
export interface StoredToolCallOutcome {
  status: ToolCallStatus;
  args: Record<string, unknown>;
  result: string;
  fullResult?: string;
  blockedBy?: string;
  error?: string;
  simulated?: boolean;
  tool?: string;
  http?: { status: number | null; durationMs: number };
}

/** A call of a run as listed (evals, trace): what was sent (or simulated) and what came back. */
export interface ListedToolCall {
  call_id: string;
  tool: string;
  args: Record<string, unknown>;
  status: ToolCallStatus;
  simulated: boolean;
  result: string | null;
}

/** A call a previous process left executing. */
export interface InterruptedToolCall {
  call_id: string;
  tool: string;
  executed_args: Record<string, unknown>;
}

/**
 * The SQL of the `tool_calls` table (as ConfirmationStore is for confirmations). Every write of a running call is
 * fenced on the run's lease epoch: a driver that lost the run changes nothing.
 */
@Injectable()
export class ToolCallStore {
  constructor(private readonly dataSource: DataSource) {}

  /** The durable records of a turn's calls, before any of them runs (in the caller's transaction when given). */
  async record(runId: string, calls: PendingToolCall[], m?: EntityManager): Promise<void> {
    const p = new SqlParams();
    await (m ?? this.dataSource).query(recordSql(p, runId, calls, ''), p.values);
  }

  /** The records of a turn's calls as a write of `RunStore.writeRun` (conditioned on the fenced run row). */
  recordWrite(p: SqlParams, runId: string, calls: PendingToolCall[]): [string, string] {
    return ['recorded', recordSql(p, runId, calls, 'WHERE EXISTS (SELECT 1 FROM owner)')];
  }

  /** Claims a pending call (pending -> running); false when it was handled already or the run is not held. */
  async claim(live: LiveRun, callId: string): Promise<boolean> {
    // An UPDATE answers [rows, rowCount].
    const [claimed] = await this.dataSource.query<[Array<{ id: string }>, number]>(
      `UPDATE tool_calls SET status = 'running', started_at = now()
        WHERE run_id = $1 AND call_id = $2 AND status = 'pending' AND ${holdsRun(3)} RETURNING id`,
      [live.run.id, callId, live.epoch],
    );
    return claimed.length > 0;
  }

  /** Puts a running call whose hooks did not decide back to pending (its hooks run again on resume). */
  async release(live: LiveRun, callId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE tool_calls SET status = 'pending', started_at = NULL
        WHERE run_id = $1 AND call_id = $2 AND status = 'running' AND ${holdsRun(3)}`,
      [live.run.id, callId, live.epoch],
    );
  }

  /** Puts every running call that was never sent (no `executed_args`) back to pending. */
  async releaseUnsent(live: LiveRun): Promise<void> {
    await this.dataSource.query(
      `UPDATE tool_calls SET status = 'pending', started_at = NULL
        WHERE run_id = $1 AND status = 'running' AND executed_args IS NULL AND ${holdsRun(2)}`,
      [live.run.id, live.epoch],
    );
  }

  /** The calls of a run still marked running, in turn order. */
  async running(runId: string): Promise<InterruptedToolCall[]> {
    return this.dataSource.query<InterruptedToolCall[]>(
      `SELECT call_id, tool, executed_args FROM tool_calls WHERE run_id = $1 AND status = 'running' ORDER BY position`,
      [runId],
    );
  }

  /** Marks a running call failed as interrupted; false when it was not running or the run is not held. */
  async markInterrupted(live: LiveRun, callId: string, content: string): Promise<boolean> {
    const [, affected] = await this.dataSource.query<[unknown, number]>(
      `UPDATE tool_calls SET status = 'failed', result = $3, full_result = $3, error = 'interrupted',
                             finished_at = now()
         WHERE run_id = $1 AND call_id = $2 AND status = 'running' AND ${holdsRun(4)}`,
      [live.run.id, callId, content, live.epoch],
    );
    return affected > 0;
  }

  /** The stored status and result of the given calls of a run. */
  async results(
    runId: string,
    callIds: string[],
  ): Promise<Array<{ call_id: string; status: ToolCallStatus; result: string | null }>> {
    return this.dataSource.query(
      `SELECT call_id, status, result FROM tool_calls WHERE run_id = $1 AND call_id = ANY($2)`,
      [runId, callIds],
    );
  }

  /**
   * A running (or pending) call's outcome and the completion of its in-flight audit row, as writes of
   * `RunStore.writeRun`; `precondition` (on the run row) makes the whole statement — its events too — write nothing
   * when the call was settled already.
   */
  outcomeWrites(
    p: SqlParams,
    live: LiveRun,
    callId: string,
    r: StoredToolCallOutcome,
  ): { precondition: string; ctes: Array<[string, string]> } {
    const [runId, call, status, error] = [p.add(live.run.id), p.add(callId), p.add(r.status), p.add(r.error ?? null)];
    const open = `run_id = ${runId}::uuid AND call_id = ${call} AND status IN ('pending', 'running')`;
    const sets = [
      `status = ${status}`,
      `executed_args = ${p.add(JSON.stringify(r.args))}`,
      `result = ${p.add(r.result)}`,
      `full_result = ${p.add(r.fullResult ?? r.result)}`,
      `blocked_by = ${p.add(r.blockedBy ?? null)}`,
      `error = ${error}`,
      `simulated = ${p.add(r.simulated ?? false)}`,
    ];
    return {
      precondition: `EXISTS (SELECT 1 FROM tool_calls WHERE ${open})`,
      ctes: [
        [
          'done',
          `UPDATE tool_calls SET ${sets.join(', ')}, started_at = COALESCE(started_at, now()), finished_at = now()
            WHERE ${open} AND EXISTS (SELECT 1 FROM owner) RETURNING call_id`,
        ],
        [
          'audited',
          inFlightAuditCompletion(
            {
              runId,
              callId: call,
              status,
              error,
              httpStatus: p.add(r.http?.status ?? null),
              durationMs: p.add(r.http ? Math.round(r.http.durationMs) : null),
            },
            'done',
          ),
        ],
      ],
    };
  }

  /** Throws LeaseLostError (stopping the drive) unless this driver still holds the run at its epoch. */
  async assertHeld(live: LiveRun): Promise<void> {
    const [row] = await this.dataSource.query<Array<{ held: boolean } | undefined>>(
      `SELECT (lease_epoch = $2 AND status IN ('running', 'waiting')) AS held FROM agent_runs WHERE id = $1`,
      [live.run.id, live.epoch],
    );
    if (row?.held) return;
    const err = new LeaseLostError(live.run.id, 'a fenced tool-call write was refused');
    live.abort.abort(err);
    throw err;
  }

  /** The error for a guarded write that changed nothing: the lease is gone, or (held) the call was settled already. */
  async lostOrGone(live: LiveRun, callId: string): Promise<Error> {
    await this.assertHeld(live);
    return new Error(`tool call ${callId} is no longer running`);
  }

  /** The calls of a run in the order they were made, with what was sent (or simulated) and what came back. */
  async listForRun(runId: string): Promise<ListedToolCall[]> {
    return this.dataSource.query<ListedToolCall[]>(
      `SELECT call_id, tool, COALESCE(executed_args, args) AS args, status, simulated, result FROM tool_calls
        WHERE run_id = $1 ORDER BY created_at, position`,
      [runId],
    );
  }
}

/** One statement recording calls in turn order (a call recorded already stays as it is). */
function recordSql(p: SqlParams, runId: string, calls: PendingToolCall[], condition: string): string {
  return `INSERT INTO tool_calls (run_id, call_id, position, tool, args, status)
    SELECT ${p.add(runId)}::uuid, c.call_id, c.ord::int - 1, c.tool, c.args, 'pending'
      FROM unnest(${p.add(calls.map((c) => c.call_id))}::text[], ${p.add(calls.map((c) => c.tool))}::text[],
                  ${p.add(calls.map((c) => JSON.stringify(c.args)))}::jsonb[])
           WITH ORDINALITY AS c(call_id, tool, args, ord)
     ${condition}
    ON CONFLICT (run_id, call_id) DO NOTHING RETURNING call_id`;
}
