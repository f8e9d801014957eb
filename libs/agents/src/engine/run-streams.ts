import type { Logger } from '@nestjs/common';
import type { RunEventData, RunEventMap, RunEventType } from '@warden/common';
import { SqlParams, type OwnerWrite } from '@warden/database';
import type { RunEventsService } from '../runs/run-events.service.js';
import type { RunStatus } from '../runs/run.entity.js';
import type { LiveRun } from './live-run.js';
import type { RunTx, RunWrite } from './run-ending.js';
import { LeaseLostError } from './run-fence.js';
import { isFinal, statusChange, type ActiveRunStatus } from './run-transitions.js';

// How a live run's writes are fenced by its driver's lease epoch: the one statement of RunStore.writeRun
// (fencedWrite), and the appends event by event of its transaction path (a run with ancestors, a cancel) — its own
// stream and, for a child run, its ancestors' streams, which also show its status.

/** What these appends need of RunStore. */
export interface RunStreams {
  events: RunEventsService;
  logger: Logger;
  runner: { query(sql: string, params?: unknown[]): Promise<unknown> };
}

/**
 * `write` fenced by the driver's epoch and an active status, with the status it moves the run to: its own, else one
 * named with a deferred event (a decision: running); a final status also takes the transition table's guard.
 */
export function fencedWrite(live: LiveRun, write: RunWrite, p: SqlParams): { full: OwnerWrite; to?: RunStatus } {
  const to = write.status ?? live.deferredStatus;
  live.deferredStatus = undefined;
  const change = to ? statusChange(p, to) : undefined;
  const final = to !== undefined && isFinal(to);
  const guards = [
    `lease_epoch = ${p.add(live.epoch)}`,
    `status IN ('running', 'waiting')`,
    write.where,
    final ? change?.guard : undefined,
  ];
  const set = [...(write.set ?? []), ...(change ? [change.set] : [])];
  return { full: { ...write, params: p, set, where: guards.filter(Boolean).join(' AND ') }, to };
}

/** A fenced write of the live run was refused: the driver lost the run; it stops (LeaseLostError). */
export function leaseLost(logger: Logger, live: LiveRun, why = 'a fenced write was refused'): LeaseLostError {
  const err = new LeaseLostError(live.run.id, why);
  if (!live.abort.signal.aborted) {
    logger.warn(
      { runId: live.run.id },
      'run lease taken over by another instance or the run ended elsewhere; stopping here',
    );
    live.abort.abort(err);
  }
  return err;
}

/** The live run's deferred hook events, appended in `tx` in the order they happened (with their status change). */
export async function flushDeferred(s: RunStreams, live: LiveRun, tx: RunTx): Promise<void> {
  for (const e of live.deferred.splice(0)) await appendToStreams(s, live, e.type, e.data, tx);
  const to = live.deferredStatus;
  live.deferredStatus = undefined;
  if (to) await setStatus(tx.m, live, to);
}

/** Appends an event of the live run, fenced by its epoch; throws LeaseLostError (and stops the drive) when not held. */
async function appendOwn<K extends RunEventType>(
  s: RunStreams,
  live: LiveRun,
  type: K,
  data: RunEventMap[K],
  tx?: RunTx,
): Promise<RunEventData<K>> {
  const payload: RunEventData<K> = { run_id: live.run.id, surface: live.run.surface, ...data };
  const seq = await s.events.appendIf(live.run.id, type, payload, {
    epoch: live.epoch,
    runner: tx?.m,
    batch: tx?.batch,
  });
  if (seq === null) throw leaseLost(s.logger, live);
  return payload;
}

/** An event of the live run (fenced) and, like every event of a child run, of its ancestors' streams. */
export async function appendToStreams<K extends RunEventType>(
  s: RunStreams,
  live: LiveRun,
  type: K,
  data: RunEventMap[K],
  tx?: RunTx,
): Promise<RunEventData<K>> {
  const payload = await appendOwn(s, live, type, data, tx);
  for (const a of live.ancestors) {
    const opts = tx ? { runner: tx.m, batch: tx.batch } : {};
    await s.events.appendIf(
      a.id,
      type,
      { ...payload, parent_call_id: payload.parent_call_id ?? live.run.parentCallId },
      opts,
    );
  }
  return payload;
}

/** Moves the run (only its holder may) and its ancestors, which show its state, through the transition table. */
export async function setStatus(runner: RunStreams['runner'], live: LiveRun, to: ActiveRunStatus): Promise<void> {
  const p = new SqlParams();
  const [run, ids, epoch] = [
    p.add(live.run.id),
    p.add([live.run.id, ...live.ancestors.map((a) => a.id)]),
    p.add(live.epoch),
  ];
  const change = statusChange(p, to);
  await runner.query(
    `UPDATE agent_runs SET ${change.set}, updated_at = now()
      WHERE id = ANY(${ids}::uuid[]) AND ${change.guard} AND (id <> ${run}::uuid OR lease_epoch = ${epoch})`,
    p.values,
  );
}
