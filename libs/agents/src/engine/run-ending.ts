import { expirePendingConfirmations } from '@warden/confirmations/run-port';
import type { PendingRunEvent, RunEventData, RunEventTokenUsage } from '@warden/common';
import { SqlParams, type EventBatch, type OwnerWrite } from '@warden/database';
import type { DataSource, EntityManager } from 'typeorm';
import type { RunEventsService } from '../runs/run-events.service.js';
import type { AgentRun, RunState, RunStatus } from '../runs/run.entity.js';
import { statusChange, type FinalRunStatus } from './run-transitions.js';

/** One transaction of a run's writes: its manager, and the events it appended (published to followers at commit). */
export interface RunTx {
  m: EntityManager;
  batch: EventBatch;
}

/**
 * A write of `RunStore.writeRun`: the run row's assignments, a further condition, other writes, and the status it
 * moves the run to (through the transition table, run-transitions.ts; a final status refuses the whole write when
 * the table does not allow it).
 */
export type RunWrite = Omit<OwnerWrite, 'params'> & {
  status?: RunStatus;
  /**
   * Its writes record the live run's deferred turn's call themselves (the call's execution mark,
   * in-flight-audit.ts).
   */
  recordsTurn?: boolean;
};

/** What a run ends with: its answer (and the tokens of the model call that wrote it) or its error. */
export interface RunResult {
  answer?: string;
  error?: string;
  usage?: RunEventTokenUsage;
}

/** How a run ends: its final status, answer or error, and (for a driver) the fence and final state. */
export interface RunEnding {
  status: FinalRunStatus;
  result: RunResult;
  epoch?: number;
  state?: RunState;
  ancestors: Array<{ id: string }>;
}

/**
 * In `tx`: moves an active run to its final status and writes its closing events (`error` / `answer`, then `done`),
 * with the final `state` when given and, for a cancel, the expiry of its pending confirmations. Returns false (and
 * writes nothing) when the run already ended or, given an epoch, another driver holds it.
 */
export async function writeRunEnding(
  tx: RunTx,
  events: RunEventsService,
  run: AgentRun,
  ending: RunEnding,
): Promise<boolean> {
  const { status, result } = ending;
  const p = new SqlParams();
  const values = [run.id, result.answer ?? null, result.error ?? null, ending.epoch ?? null].map((v) => p.add(v));
  const state = p.add(ending.state ? JSON.stringify(ending.state) : null);
  const change = statusChange(p, status);
  const [rows] = await tx.m.query<[unknown[], number]>(
    `UPDATE agent_runs SET ${change.set}, answer = ${values[1]}, error = ${values[2]},
            finished_at = now(), updated_at = now(),
            locked_by = NULL, lease_until = NULL, parked_on = NULL, state = COALESCE(${state}::jsonb, state)
      WHERE id = ${values[0]} AND ${change.guard}
        AND (${values[3]}::int IS NULL OR lease_epoch = ${values[3]}) RETURNING id`,
    p.values,
  );
  if (rows.length === 0) return false;
  if (status === 'cancelled') await expirePendingConfirmations(tx.m, run.id);
  // The conversation has the exchange before the client hears `done`: its next message must see this one.
  const exchange = conversationExchange(run, ending);
  if (exchange) {
    await tx.m.query(`UPDATE conversations SET messages = messages || $2::jsonb, updated_at = now() WHERE id = $1`, [
      run.conversationId,
      exchange,
    ]);
  }
  for (const e of closingEvents(run, ending)) await appendClosing(events, run, ending.ancestors, e, tx);
  return true;
}

/** The exchange a completed run adds to its conversation (JSON), or null. */
function conversationExchange(run: AgentRun, { status, result }: Pick<RunEnding, 'status' | 'result'>): string | null {
  if (status !== 'completed' || !run.conversationId) return null;
  return JSON.stringify([
    { role: 'user', content: run.message },
    { role: 'assistant', content: result.answer ?? '' },
  ]);
}

/** The events that close a run: `error` (unless cancelled), `answer` (completed), then `done`. */
function closingEvents(run: AgentRun, { status, result }: Pick<RunEnding, 'status' | 'result'>): PendingRunEvent[] {
  const events: PendingRunEvent[] = [];
  if (result.error && status !== 'cancelled') events.push({ type: 'error', data: { message: result.error } });
  if (status === 'completed') {
    events.push({
      type: 'answer',
      data: { content: result.answer ?? '', ...(result.usage ? { usage: result.usage } : {}) },
    });
  }
  events.push({ type: 'done', data: { run_id: run.id, status } });
  return events;
}

/**
 * The same ending as writes of `RunStore.writeRun` for a driver whose run has no ancestors (one statement): the run
 * row's final status (allowed from its current one), the conversation, and the closing events.
 */
export function runEndingWrite(
  p: SqlParams,
  run: AgentRun,
  ending: Omit<RunEnding, 'ancestors' | 'epoch'>,
): { events: PendingRunEvent[]; write: RunWrite } {
  const { status, result } = ending;
  const set = [
    `answer = ${p.add(result.answer ?? null)}`,
    `error = ${p.add(result.error ?? null)}`,
    `finished_at = now()`,
    `updated_at = now()`,
    `locked_by = NULL`,
    `lease_until = NULL`,
    ...(ending.state ? [`state = ${p.add(JSON.stringify(ending.state))}`] : []),
  ];
  const ctes: Array<[string, string]> = [];
  const exchange = conversationExchange(run, ending);
  if (exchange) {
    ctes.push([
      'conversation',
      `UPDATE conversations SET messages = messages || ${p.add(exchange)}::jsonb, updated_at = now()
        WHERE id = ${p.add(run.conversationId)}::uuid AND EXISTS (SELECT 1 FROM owner) RETURNING id`,
    ]);
  }
  return { events: closingEvents(run, ending), write: { set, ctes, status } };
}

/** A closing event (written by whoever ends the run, in its transaction) on the run and its ancestors. */
async function appendClosing(
  events: RunEventsService,
  run: AgentRun,
  ancestors: Array<{ id: string }>,
  e: PendingRunEvent,
  tx: RunTx,
): Promise<void> {
  const payload: RunEventData = { run_id: run.id, surface: run.surface, ...e.data };
  const opts = { runner: tx.m, batch: tx.batch };
  await events.appendIf(run.id, e.type, payload, opts);
  // `done` stays on the run's own stream.
  const copies = e.type === 'done' ? [] : ancestors;
  for (const a of copies)
    await events.appendIf(
      a.id,
      e.type,
      { ...payload, parent_call_id: payload.parent_call_id ?? run.parentCallId },
      opts,
    );
}

/** The run's parent, grandparent, … (nearest first; at most 20), whose streams also carry its events. */
export async function ancestorsOf(dataSource: DataSource, run: AgentRun): Promise<Array<{ id: string }>> {
  if (!run.parentRunId) return [];
  return dataSource.query<Array<{ id: string }>>(
    `WITH RECURSIVE chain(id, parent_run_id, depth) AS (
       SELECT id, parent_run_id, 1 FROM agent_runs WHERE id = $1
       UNION ALL SELECT r.id, r.parent_run_id, c.depth + 1 FROM agent_runs r
                   JOIN chain c ON r.id = c.parent_run_id WHERE c.depth < 20)
     SELECT id FROM chain ORDER BY depth`,
    [run.parentRunId],
  );
}
