import type { RunStatus } from '../runs/run.entity.js';

/**
 * The run status machine, in one table: which status may follow which. Every status change of a run is one
 * conditional UPDATE whose `WHERE status = ANY(...)` comes from here, so a run never leaves a final status and a
 * stale writer cannot move it.
 *
 *   running  -> waiting (a call waits for a person) | completed | failed | refused | cancelled
 *   waiting  -> running (decided)                    | completed | failed | cancelled
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

export type FinalRunStatus = Exclude<RunStatus, 'running' | 'waiting'>;

/** The statuses a run may reach `to` from (what a status UPDATE's WHERE clause allows). */
export function statusesLeadingTo(to: RunStatus): RunStatus[] {
  return (Object.keys(RUN_TRANSITIONS) as RunStatus[]).filter((from) => RUN_TRANSITIONS[from].includes(to));
}

/** For each final status, the statuses it may be reached from. */
export const FINAL_FROM: Readonly<Record<FinalRunStatus, RunStatus[]>> = {
  completed: statusesLeadingTo('completed'),
  failed: statusesLeadingTo('failed'),
  refused: statusesLeadingTo('refused'),
  cancelled: statusesLeadingTo('cancelled'),
};
