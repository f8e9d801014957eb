/*
 * The run engine's piece of a settlement (this module owns `agent_runs`): the claim of the run parked on a request,
 * placed by ConfirmationStore.settle in the very statement that decides it, so the deciding instance takes the run in
 * the decision's own transaction (no claim statement after it). This file imports nothing of @warden/confirmations,
 * which imports it (`@warden/agents/settle-port`), so there is no cycle.
 */

/**
 * The bus events of @warden/confirmations this listens to, named here (declared there) to avoid a dependency cycle:
 * a request left `pending` in this process (payload: the row), and another instance's settlement heard by NOTIFY
 * (payload: its id).
 */
export const CONFIRMATION_SETTLED = 'confirmation.settled';
export const CONFIRMATION_NOTIFIED = 'confirmation.notified';

/** A parked run claimed for this instance: its new epoch, and the trace it parked in. */
export interface ParkedClaim {
  id: string;
  epoch: number;
  trace?: Record<string, string>;
}

/** Bus event: the settlement of `confirmationId` claimed these parked runs for this instance (maybe none). */
export const PARKED_RUNS_CLAIMED = 'run.parked-claimed';
export interface ParkedRunsClaimed {
  confirmationId: string;
  claims: ParkedClaim[];
}

declare module '@warden/common' {
  interface BusEvents {
    [PARKED_RUNS_CLAIMED]: ParkedRunsClaimed;
  }
}

/** The assignments of a claim of a parked run (`r`) by instance `instance` for a lease of `leaseS` seconds. */
export function parkedClaimSet(instance: string, leaseS: string): string {
  return `locked_by = ${instance}, lease_until = now() + make_interval(secs => ${leaseS}),
          lease_epoch = r.lease_epoch + 1, parked_on = NULL, updated_at = now()`;
}

/**
 * A data-modifying statement for a CTE beside `settled` (the settled request's row): claims the run parked on it —
 * one not held by anyone, still active — returning `id, lease_epoch, trace`. `param` adds a parameter. A run parked
 * after the statement's snapshot is not seen here (the park waited for this decision's lock): its claim is made the
 * usual way, on the settlement's event (ParkedRunResumer).
 */
export function claimOnSettle(
  settled: string,
  param: (value: unknown) => string,
  opts: { instanceId: string; leaseMs: number },
): string {
  const set = parkedClaimSet(param(opts.instanceId), param(opts.leaseMs / 1000));
  return `UPDATE agent_runs r SET ${set}
      FROM ${settled} s
     WHERE r.id = s.run_id AND r.parked_on && ARRAY[s.id] AND r.locked_by IS NULL AND r.status IN ('running', 'waiting')
    RETURNING r.id, r.lease_epoch, r.state -> 'trace' AS trace`;
}

/** The claims a settlement's statement returned (its `claimed_runs` column: JSON rows of `claimOnSettle`). */
export function parkedClaimsOf(value: unknown): ParkedClaim[] {
  const rows = (typeof value === 'string' ? JSON.parse(value) : (value ?? [])) as Array<{
    id: string;
    lease_epoch: number;
    trace: Record<string, string> | null;
  }>;
  return rows.map((r) => ({ id: r.id, epoch: r.lease_epoch, ...(r.trace ? { trace: r.trace } : {}) }));
}
