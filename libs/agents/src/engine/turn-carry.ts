import type { PendingRunEvent } from '@warden/common';
import { SqlParams, type OwnerWriteResult } from '@warden/database';
import type { RunState } from '../runs/run.entity.js';
import type { DeferredTurn, LiveRun } from './live-run.js';
import type { RunWrite } from './run-ending.js';

/** What carrying a turn needs of RunStore. */
export interface TurnWriter {
  writeRun(live: LiveRun, events: PendingRunEvent[], write: RunWrite, p: SqlParams): Promise<OwnerWriteResult>;
  stateSets(p: SqlParams, state: RunState): string[];
}

/**
 * `write` of a live run whose one-call model turn is not written yet (LiveRun.turn): the call's execution mark
 * (`recordsTurn`) or a write of events only carries the turn in its own statement; any other write has the turn
 * written first, on its own (redoable). A later write waits for the one carrying it (LiveRun.turnWrite).
 */
export async function writeCarryingTurn(
  store: TurnWriter,
  live: LiveRun,
  turn: DeferredTurn,
  events: PendingRunEvent[],
  write: RunWrite,
  p: SqlParams,
): Promise<OwnerWriteResult> {
  live.turn = undefined;
  const carried = write.recordsTurn === true || (!write.set && !write.ctes && !write.where);
  if (!carried) {
    const q = new SqlParams();
    const alone = { set: store.stateSets(q, turn.state), ctes: [turn.record(q)], redoable: true };
    const flushed = await store.writeRun(live, [], alone, q);
    return flushed.held ? store.writeRun(live, events, write, p) : flushed;
  }
  const ctes = write.recordsTurn ? (write.ctes ?? []) : [turn.record(p)];
  const set = [...store.stateSets(p, turn.state), ...(write.set ?? [])];
  const written = store.writeRun(live, events, { ...write, set, ctes }, p);
  live.turnWrite = written;
  try {
    return await written;
  } finally {
    if (live.turnWrite === written) live.turnWrite = undefined;
  }
}
