import type { PendingRunEvent } from '@warden/common';
// Narrow imports (not the libs' indexes): this suite loads the store and what it needs, not the whole app.
import type { LiveRun } from '../../libs/agents/src/engine/live-run.js';
import { LeaseLostError } from '../../libs/agents/src/engine/run-fence.js';
import { RunStore } from '../../libs/agents/src/engine/run-store.js';
import { RUN_TRANSITIONS, type FinalRunStatus } from '../../libs/agents/src/engine/run-transitions.js';
import type { RunState, RunStatus } from '../../libs/agents/src/runs/run.entity.js';
import type { MediumDb } from './medium-db.js';
import { twoStoreInstances, type StoreInstance } from './store-instance.js';

/** What a driver holds in memory for the store's fenced writes: the run as read, and the epoch it claimed it at. */
async function driving(store: RunStore, runId: string, epoch: number): Promise<LiveRun> {
  const run = await store.get(runId);
  const live: Partial<LiveRun> = {
    run,
    epoch,
    ancestors: await store.ancestorsOf(run),
    deferred: [],
    observed: new Map(),
    abort: new AbortController(),
  };
  return live as LiveRun;
}

const state = (turns: number): RunState => ({ phase: 'llm', messages: [{ role: 'user', content: 'hi' }], turns });

/** RunStore (and RunFinisher) on a real database, without the app: claims, fenced writes, the ending, waiting. */
describe('RunStore (medium)', () => {
  let db: MediumDb;
  let a: StoreInstance;
  let b: StoreInstance;

  twoStoreInstances((made) => ({ db, a, b } = made));

  const row = async (id: string) =>
    (
      await db.dataSource.query(
        `SELECT status, state, answer, error, locked_by, lease_epoch, event_seq FROM agent_runs WHERE id = $1`,
        [id],
      )
    )[0];
  const events = (
    id: string,
  ): Promise<Array<{ seq: number; type: string; data: Record<string, unknown>; created_at: Date }>> =>
    db.dataSource.query(`SELECT seq, type, data, created_at FROM run_events WHERE run_id = $1 ORDER BY seq`, [id]);
  /** The run's holder stopped renewing (crashed, paused): its lease ran out. */
  const expireLease = (id: string) =>
    db.dataSource.query(`UPDATE agent_runs SET lease_until = now() - interval '1 second' WHERE id = $1`, [id]);

  it('of two instances claiming a free run at once, exactly one wins; the other cannot claim it while the lease lives', async () => {
    const id = await db.newRun({ lockedBy: 'crashed', epoch: 1 });
    await expireLease(id);
    const epochs = await Promise.all([a.store.leases.acquire(id), b.store.leases.acquire(id)]);
    expect(epochs.filter((e) => e !== null)).toEqual([2]);
    const [winner, loser] = epochs[0] !== null ? (['a', b] as const) : (['b', a] as const);
    expect(await loser.store.leases.acquire(id)).toBeNull();
    expect(await row(id)).toMatchObject({ locked_by: winner, lease_epoch: 2 });

    const ended = await db.newRun({ status: 'completed' });
    await expireLease(ended);
    expect(await a.store.leases.acquire(ended)).toBeNull();
  });

  it("after another instance took the run over, the old holder's writes are refused and change nothing", async () => {
    const id = await db.newRun({ lockedBy: 'a', epoch: 1 });
    const old = await driving(a.store, id, 1);
    expect(await a.store.saveState(old, state(1))).toBe(true);
    await expireLease(id);
    const epoch = await b.store.leases.acquire(id);
    expect(epoch).toBe(2);
    const before = await row(id);

    expect(await a.store.saveState(old, state(2))).toBe(false);
    await expect(
      a.store.appendToStreams(old, 'model_retry', { attempt: 1, message: 'retry', retry_in_ms: 0 }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(old.abort.signal.aborted).toBe(true); // the old driver's model or tool call in progress is aborted
    // A fenced write of the old holder writes nothing: not its events, not the run row, not its other writes.
    const refused = await a.store.writeRun(
      old,
      [{ type: 'observation', data: { call_id: 'c0', tool: 't', args: {}, content: '0', blocked: false } }],
      {
        set: [`answer = 'stale'`],
        ctes: [
          [
            'stale',
            `UPDATE agent_runs SET error = 'stale' WHERE id = '${id}' AND EXISTS (SELECT 1 FROM owner) RETURNING id`,
          ],
        ],
      },
    );
    expect(refused).toMatchObject({ held: false, seqs: [], counts: { stale: 0 } });
    await a.store.setStatus(old, 'waiting');
    expect(await a.finisher.finishLive(old, 'completed', { answer: 'stale' })).toBe(false);
    expect(old.outcome).toBeUndefined();
    expect(await row(id)).toEqual(before);
    expect(await events(id)).toEqual([]);

    const now = await driving(b.store, id, epoch!);
    expect(await b.store.saveState(now, state(2))).toBe(true);
    expect(await b.finisher.finishLive(now, 'completed', { answer: 'fresh' })).toBe(true);
    expect(now.outcome).toEqual({ runId: id, status: 'completed', answer: 'fresh', error: null });
    expect(await row(id)).toMatchObject({ status: 'completed', answer: 'fresh', state: state(2), locked_by: null });
    expect((await events(id)).map((e) => e.type)).toEqual(['answer', 'done']);
  });

  it('ending a run follows the status table: a final status is never left, and each run ends once', async () => {
    const finals: FinalRunStatus[] = ['completed', 'failed', 'refused', 'cancelled'];
    for (const from of Object.keys(RUN_TRANSITIONS) as RunStatus[]) {
      for (const to of finals) {
        const id = await db.newRun({ status: from });
        const won = await a.finisher.finish(
          await a.store.get(id),
          to,
          to === 'completed' ? { answer: 'done' } : { error: 'stopped' },
        );
        const allowed = RUN_TRANSITIONS[from].includes(to);
        expect({ from, to, won }).toEqual({ from, to, won: allowed });
        expect((await row(id)).status).toBe(allowed ? to : from);
        expect((await events(id)).filter((e) => e.type === 'done')).toHaveLength(allowed ? 1 : 0);
      }
    }
    // The table itself: waiting can never become refused (a refusal happens before anything waits).
    expect(RUN_TRANSITIONS.waiting).not.toContain('refused');
  });

  it("a run's status changes only by a write naming it (through the table), never because of an event's name", async () => {
    const id = await db.newRun({ lockedBy: 'a', epoch: 1 });
    const live = await driving(a.store, id, 1);
    const pending = {
      type: 'confirmation_pending',
      data: {
        confirmation_id: 'x',
        call_id: 'c1',
        tool: 't',
        args: {},
        expires_at: '',
        channel: { id: null, type: null, name: null },
      },
    } as PendingRunEvent;
    const resolved = {
      type: 'confirmation_resolved',
      data: { call_id: 'c1', confirmation_id: 'x', status: 'approved', responded_by: 'Bob' },
    } as PendingRunEvent;
    // An event's name moves nothing.
    expect((await a.store.writeRun(live, [pending], {})).held).toBe(true);
    expect((await row(id)).status).toBe('running');
    // A write that names the change moves the run (running -> waiting is in the table).
    expect((await a.store.writeRun(live, [], { status: 'waiting' })).held).toBe(true);
    expect((await row(id)).status).toBe('waiting');
    live.deferred.push(resolved);
    expect((await a.store.writeRun(live, [], {})).held).toBe(true);
    expect((await row(id)).status).toBe('waiting');
    expect((await a.store.writeRun(live, [], { status: 'running' })).held).toBe(true);
    expect((await row(id)).status).toBe('running');
    expect((await events(id)).map((e) => e.type)).toEqual(['confirmation_pending', 'confirmation_resolved']);
  });

  it('a status change the table does not allow is refused: the write changes nothing', async () => {
    const id = await db.newRun({ status: 'waiting', lockedBy: 'a', epoch: 1 });
    const live = await driving(a.store, id, 1);
    const observation = {
      type: 'observation',
      data: { call_id: 'c1', tool: 't', args: {}, content: '1', blocked: false },
    } as PendingRunEvent;
    // waiting -> refused is not in the table (a refusal happens before anything waits).
    expect((await a.store.writeRun(live, [observation], { status: 'refused', set: [`answer = 'no'`] })).held).toBe(
      false,
    );
    expect(await row(id)).toMatchObject({ status: 'waiting', answer: null, event_seq: 0 });
    expect(await a.finisher.finish(live.run, 'refused', { error: 'no' }, { epoch: 1 })).toBe(false);
    expect((await row(id)).status).toBe('waiting');
  });

  it('a cancelled run cannot be finished as completed: its driver loses, and the run ends (and is announced) once', async () => {
    const id = await db.newRun({ lockedBy: 'a', epoch: 1 });
    const live = await driving(a.store, id, 1);
    a.finished.splice(0);
    b.finished.splice(0);
    expect(await b.finisher.finish(await b.store.get(id), 'cancelled', { error: 'the run was cancelled' })).toBe(true);
    expect(await a.finisher.finishLive(live, 'completed', { answer: 'too late' }, state(3))).toBe(false);

    expect(await row(id)).toMatchObject({
      status: 'cancelled',
      answer: null,
      error: 'the run was cancelled',
      state: live.run.state,
    });
    expect((await events(id)).map((e) => [e.type, e.data.status])).toEqual([['done', 'cancelled']]);
    expect([...a.finished, ...b.finished]).toEqual([{ runId: id, status: 'cancelled' }]);
  });

  it('writeRun stores the deferred events, the run row, other writes and new events in one statement; a failed one stores none', async () => {
    const id = await db.newRun({ lockedBy: 'a', epoch: 1 });
    const live = await driving(a.store, id, 1);
    live.deferred.push({
      type: 'hook',
      data: { point: 'PreToolUse', hook: 'first', outcome: 'allow', side_effects: [], duration_ms: 0 },
    });
    const other = `INSERT INTO tool_calls (run_id, call_id, position, tool, args, status)
      SELECT '${id}', 'c1', 0, 't', '{}', 'pending' WHERE EXISTS (SELECT 1 FROM owner) RETURNING call_id`;
    const result = await a.store.writeRun(
      live,
      [{ type: 'observation', data: { call_id: 'c1', tool: 't', args: {}, content: '1', blocked: false } }],
      { set: [`answer = 'written'`, `updated_at = now()`], ctes: [['calls', other]] },
    );
    expect(result).toMatchObject({ held: true, seqs: [1, 2], counts: { calls: 1 } });
    expect(live.deferred).toEqual([]);
    const stored = await events(id);
    expect(stored.map((e) => [e.seq, e.type])).toEqual([
      [1, 'hook'],
      [2, 'observation'],
    ]);
    // now() is the transaction's start: the run row and both events share it only when written together.
    const [{ updated_at }] = await db.dataSource.query(`SELECT updated_at FROM agent_runs WHERE id = $1`, [id]);
    expect(stored.map((e) => e.created_at.getTime())).toEqual([updated_at.getTime(), updated_at.getTime()]);
    expect(await db.dataSource.query(`SELECT call_id FROM tool_calls WHERE run_id = $1`, [id])).toEqual([
      { call_id: 'c1' },
    ]);

    live.deferred.push({
      type: 'hook',
      data: { point: 'PreToolUse', hook: 'second', outcome: 'allow', side_effects: [], duration_ms: 0 },
    });
    const failing = `UPDATE tool_calls SET position = 'not a number' WHERE run_id = '${id}' AND EXISTS (SELECT 1 FROM owner) RETURNING call_id`;
    await expect(
      a.store.writeRun(
        live,
        [{ type: 'observation', data: { call_id: 'c2', tool: 't', args: {}, content: '2', blocked: false } }],
        {
          set: [`answer = 'half-written'`],
          ctes: [['failing', failing]],
        },
      ),
    ).rejects.toThrow(/integer/);
    expect(await events(id)).toEqual(stored);
    expect(await row(id)).toMatchObject({ answer: 'written', event_seq: 2 });

    // A precondition that does not hold writes nothing either (e.g. a call settled already).
    const unmet = await a.store.writeRun(
      live,
      [{ type: 'observation', data: { call_id: 'c3', tool: 't', args: {}, content: '3', blocked: false } }],
      {
        where: `EXISTS (SELECT 1 FROM tool_calls WHERE run_id = '${id}' AND call_id = 'c3')`,
      },
    );
    expect(unmet.held).toBe(false);
    expect(await events(id)).toEqual(stored);
  });

  it('writeRun of a run with ancestors also writes its events to their streams, in one transaction', async () => {
    const parent = await db.newRun({ lockedBy: 'a', epoch: 1 });
    const child = await db.newRun({ lockedBy: 'a', epoch: 1 });
    await db.dataSource.query(`UPDATE agent_runs SET parent_run_id = $2 WHERE id = $1`, [child, parent]);
    const live = await driving(a.store, child, 1);
    const pending = {
      type: 'confirmation_pending',
      data: {
        confirmation_id: 'x',
        call_id: 'c1',
        tool: 't',
        args: {},
        expires_at: '',
        channel: { id: null, type: null, name: null },
      },
    } as PendingRunEvent;
    expect((await a.store.writeRun(live, [pending], { set: [`answer = 'asked'`], status: 'waiting' })).held).toBe(true);
    expect([(await row(child)).status, (await row(parent)).status]).toEqual(['waiting', 'waiting']);
    expect((await events(child)).map((e) => e.type)).toEqual(['confirmation_pending']);
    expect((await events(parent)).map((e) => e.type)).toEqual(['confirmation_pending']);
    expect((await row(child)).answer).toBe('asked');

    // Its precondition unmet (e.g. the call was settled already), nothing is written to either stream.
    const observation = {
      type: 'observation',
      data: { call_id: 'c1', tool: 't', args: {}, content: '1', blocked: false },
    } as PendingRunEvent;
    expect((await a.store.writeRun(live, [observation], { where: 'false' })).held).toBe(false);
    expect((await events(child)).map((e) => e.type)).toEqual(['confirmation_pending']);
    expect((await events(parent)).map((e) => e.type)).toEqual(['confirmation_pending']);
  });

  it('setStatus moves the run and its ancestors between running and waiting; only its holder moves the run', async () => {
    const parent = await db.newRun({ lockedBy: 'a', epoch: 1 });
    const child = await db.newRun({ lockedBy: 'a', epoch: 1 });
    await db.dataSource.query(`UPDATE agent_runs SET parent_run_id = $2 WHERE id = $1`, [child, parent]);
    const live = await driving(a.store, child, 1);
    expect(live.ancestors).toEqual([{ id: parent }]);
    const statuses = async () => [(await row(child)).status, (await row(parent)).status];

    await a.store.setStatus(live, 'waiting');
    expect(await statuses()).toEqual(['waiting', 'waiting']);
    await a.store.setStatus({ ...live, epoch: 0 }, 'running'); // a driver from before the last claim
    expect((await row(child)).status).toBe('waiting');
    await a.store.setStatus(live, 'running');
    expect(await statuses()).toEqual(['running', 'running']);

    expect(await a.finisher.finish(live.run, 'cancelled', { error: 'the run was cancelled' })).toBe(true);
    await a.store.setStatus(live, 'waiting');
    expect((await row(child)).status).toBe('cancelled');
  });
});
