import type { SqlParams } from '@warden/database';
import type { RunStatus } from '../runs/run.entity.js';

/**
 * The run status machine, in one table: which status may follow which (Vendure's order-state style). A run is born
 * `running` (run-insert.ts); every later change of `agent_runs.status` is an assignment made here (`statusChange`)
 * whose guard (`status = ANY(...)`) comes from this table, so a run never leaves a final status, a stale writer
 * cannot move it, and no status changes as a side effect of an event's name.
 *
 *   running  -> waiting (a call waits for a person) | completed | failed | refused | cancelled
 *   waiting  -> running (the person decided)         | completed | failed | cancelled
 *   completed, failed, refused, cancelled: final
 */
export const RUN_TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  running: ['waiting', 'completed', 'failed', 'refused', 'cancelled'],
  waiting: ['running', 'completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  refused: [],
  cancelled: [],
};

/** The status a run is born with (the only status not reached through the table). */
export const INITIAL_RUN_STATUS = 'running' satisfies RunStatus;

export type ActiveRunStatus = 'running' | 'waiting';
export type FinalRunStatus = Exclude<RunStatus, ActiveRunStatus>;

/** A status change the table does not allow (a bug in the caller: it is never written). */
export class IllegalRunTransitionError extends Error {
  constructor(
    readonly from: RunStatus,
    readonly to: RunStatus,
  ) {
    super(`a run cannot go from ${from} to ${to}`);
    this.name = 'IllegalRunTransitionError';
  }
}

export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return RUN_TRANSITIONS[from].includes(to);
}

/** Returns `to`, or throws when the table does not allow it from `from` (for statuses held in memory). */
export function transition(from: RunStatus, to: RunStatus): RunStatus {
  if (!canTransition(from, to)) throw new IllegalRunTransitionError(from, to);
  return to;
}

/** The statuses a run may reach `to` from (what a status UPDATE's guard allows). */
export function statusesLeadingTo(to: RunStatus): RunStatus[] {
  return (Object.keys(RUN_TRANSITIONS) as RunStatus[]).filter((from) => canTransition(from, to));
}

export function isFinal(status: RunStatus): status is FinalRunStatus {
  return RUN_TRANSITIONS[status].length === 0;
}

/**
 * The SQL of one status change of `agent_runs`, as parts of a conditional UPDATE: `set` assigns `to` where the table
 * allows it from the row's status; `guard` is the condition that it does. A final status is a write's whole point:
 * its UPDATE carries the guard (refused otherwise). A move between active statuses (`running` <-> `waiting`) is a
 * side of a write that must not fail with it (a second call waiting while the run already waits): its `set` leaves
 * a status it cannot move from as it is.
 */
export function statusChange(p: SqlParams, to: RunStatus, column = 'status'): { set: string; guard: string } {
  const from = p.add(statusesLeadingTo(to));
  const target = p.add(to);
  return {
    set: `${column} = CASE WHEN ${column} = ANY(${from}::text[]) THEN ${target}::text ELSE ${column} END`,
    guard: `${column} = ANY(${from}::text[])`,
  };
}
