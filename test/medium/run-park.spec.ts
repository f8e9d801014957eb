import { claimExpiredLeases } from '@warden/database';
import { until } from '../support/eventually.js';
// Narrow imports (not the libs' indexes): the store, its leases and what they need, not the whole app.
import type { LiveRun } from '../../libs/agents/src/engine/live-run.js';
import type { RunStore } from '../../libs/agents/src/engine/run-store.js';
import type { ToolTurnState } from '../../libs/agents/src/runs/run.entity.js';
import type { MediumDb } from './medium-db.js';
import { twoStoreInstances, type StoreInstance } from './store-instance.js';

/** The park of a run waiting for approvals, and the claims that end it, on a real database without the app. */
describe('RunStore.park and RunLeases.claimParked (medium)', () => {
  let db: MediumDb;
  let a: StoreInstance;
  let b: StoreInstance;

  twoStoreInstances((made) => ({ db, a, b } = made));

  const row = async (id: string) =>
    (
      await db.dataSource.query(
        `SELECT status, locked_by, lease_until, lease_epoch, parked_on, state FROM agent_runs WHERE id = $1`,
        [id],
      )
    )[0];
  /** A pending approval of the run's call `call`, due in `dueS` seconds. */
  const request = async (runId: string, call: string, dueS = 600): Promise<string> =>
    (
      await db.dataSource.query(
        `INSERT INTO confirmation_requests (org_id, run_id, call_id, tool, approver_scope, expires_at)
         SELECT org_id, id, $2, 'oa__pay', 'initiator', now() + make_interval(secs => $3) FROM agent_runs WHERE id = $1 RETURNING id`,
        [runId, call, dueS],
      )
    )[0].id;
  const decide = (id: string) =>
    db.dataSource.query(`UPDATE confirmation_requests SET status = 'approved', responded_at = now() WHERE id = $1`, [
      id,
    ]);
  const driving = async (store: RunStore, runId: string, epoch: number): Promise<LiveRun> =>
    ({
      run: await store.get(runId),
      epoch,
      ancestors: [],
      deferred: [],
      observed: new Map(),
      abort: new AbortController(),
    }) as Partial<LiveRun> as LiveRun;
  const parkedState = (calls: Array<[string, string]>): ToolTurnState => ({
    phase: 'tools',
    messages: [],
    turns: 1,
    pending_calls: calls.map(([call]) => ({ call_id: call, tool: 'oa__pay', args: { amount: 1 } })),
    parked_calls: calls.map(([call, confirmation]) => ({
      call_id: call,
      confirmation_id: confirmation,
      args: { amount: 1 },
    })),
  });
  const claimRecovery = (instanceId: string) =>
    claimExpiredLeases(db.dataSource, {
      table: 'agent_runs',
      instanceId,
      leaseMs: 60_000,
      exclude: [],
      limit: 100,
      claimable: `(parked_on IS NULL OR EXISTS (SELECT 1 FROM confirmation_requests c WHERE c.id = ANY(agent_runs.parked_on) AND (c.status <> 'pending' OR c.expires_at <= now())))`,
      set: 'parked_on = NULL',
    });

  it('parks: state saved, no holder, no lease, parked_on names the approvals; recovery leaves it alone while they are pending', async () => {
    const id = await db.newRun({ lockedBy: 'a', epoch: 1 });
    const c = await request(id, 'call-1');
    const live = await driving(a.store, id, 1);
    expect(await a.store.park(live, parkedState([['call-1', c]]))).toBe('parked');
    const parked = await row(id);
    expect(parked).toMatchObject({ status: 'waiting', locked_by: null, lease_until: null, parked_on: [c] });
    expect(parked.state.parked_calls).toEqual([{ call_id: 'call-1', confirmation_id: c, args: { amount: 1 } }]);
    expect(await claimRecovery('b')).not.toContain(id);
    expect(await b.store.leases.claimParked([])).toEqual([]);
  });

  it('an approval already decided in the park snapshot keeps the run held: the drive goes on', async () => {
    const id = await db.newRun({ lockedBy: 'a', epoch: 1 });
    const c = await request(id, 'call-1');
    await decide(c);
    expect(await a.store.park(await driving(a.store, id, 1), parkedState([['call-1', c]]))).toBe('decided');
    expect(await row(id)).toMatchObject({ locked_by: 'a', parked_on: null, lease_epoch: 1 });
    expect((await row(id)).lease_until).not.toBeNull();
  });

  it('a decision being written while the run parks is waited for and seen: the run stays held (no claim can miss it)', async () => {
    const id = await db.newRun({ lockedBy: 'a', epoch: 1 });
    const c = await request(id, 'call-1');
    // The decision's transaction has written the row but not committed (as a settle in flight does).
    const decision = db.dataSource.createQueryRunner();
    await decision.connect();
    try {
      await decision.startTransaction();
      await decision.query(`UPDATE confirmation_requests SET status = 'approved', responded_at = now() WHERE id = $1`, [
        c,
      ]);
      const park = a.store.park(await driving(a.store, id, 1), parkedState([['call-1', c]]));
      // Barrier: the park either ends (it read the request as pending: a claim sent before its commit would miss the
      // run) or waits for the decision's lock (then it reads the decided row).
      let ended = false;
      void park.finally(() => (ended = true));
      const first = await until('the park ending or waiting on the decision', async () => {
        if (ended) return 'park ended';
        const [waiting] = await db.dataSource.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%agent_runs%'`,
        );
        return waiting.n > 0 ? 'park waiting' : undefined;
      });
      expect(first).toBe('park waiting');
      await decision.commitTransaction();
      expect(await park).toBe('decided');
      expect(await row(id)).toMatchObject({ locked_by: 'a', parked_on: null, lease_epoch: 1 });
    } finally {
      if (decision.isTransactionActive) await decision.rollbackTransaction();
      await decision.release();
    }
  });

  it('a driver that lost the run parks nothing', async () => {
    const id = await db.newRun({ lockedBy: 'b', epoch: 2 });
    const c = await request(id, 'call-1');
    expect(await a.store.park(await driving(a.store, id, 1), parkedState([['call-1', c]]))).toBe('lost');
    expect(await row(id)).toMatchObject({ locked_by: 'b', parked_on: null });
  });

  it('of two instances claiming a decided parked run at once, exactly one wins, at the next epoch; an undecided one is not claimed', async () => {
    const id = await db.newRun({ lockedBy: 'a', epoch: 3 });
    const [c1, c2] = [await request(id, 'call-1'), await request(id, 'call-2')];
    expect(
      await a.store.park(
        await driving(a.store, id, 3),
        parkedState([
          ['call-1', c1],
          ['call-2', c2],
        ]),
      ),
    ).toBe('parked');
    expect(await b.store.leases.claimParked([c1, c2])).toEqual([]);
    await decide(c2);
    const claims = await Promise.all([a.store.leases.claimParked([c2]), b.store.leases.claimParked([c2])]);
    expect(claims.flat()).toEqual([{ id, epoch: 4 }]);
    const winner = claims[0].length ? 'a' : 'b';
    expect(await row(id)).toMatchObject({ locked_by: winner, parked_on: null, lease_epoch: 4 });
    expect(await a.store.leases.claimParked([c2])).toEqual([]);
  });

  it('recovery claims a parked run whose approval is decided without a claim, or past its deadline', async () => {
    const decided = await db.newRun({ lockedBy: 'a', epoch: 1 });
    const c = await request(decided, 'call-1');
    const overdue = await db.newRun({ lockedBy: 'a', epoch: 1 });
    const late = await request(overdue, 'call-1', 0);
    expect(await a.store.park(await driving(a.store, decided, 1), parkedState([['call-1', c]]))).toBe('parked');
    expect(await a.store.park(await driving(a.store, overdue, 1), parkedState([['call-1', late]]))).toBe('parked');
    expect(await claimRecovery('b')).toEqual([overdue]);
    await decide(c);
    expect(await claimRecovery('b')).toEqual([decided]);
    expect(await row(decided)).toMatchObject({ locked_by: 'b', parked_on: null, lease_epoch: 2 });
  });
});
