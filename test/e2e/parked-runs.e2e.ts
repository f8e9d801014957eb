import { ParkedRunResumer, RunExecutor } from '@warden/agents';
import { startOaApp, type OaApp } from './oa-app.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { openChat, RuntimeTestHooksModule, TestMutateAfterApprovalHook, type LiveChat } from './runtime-helpers.js';

interface RunRow {
  status: string;
  locked_by: string | null;
  lease_until: Date | null;
  parked_on: string[] | null;
}

/**
 * A chat run waiting for a human decision is parked: no lease, no timer, nothing in any process. The decision (on
 * whichever instance takes it) claims the run and continues it at the gate — the hooks before the gate do not run
 * again — and recovery picks up a decision whose claim was missed, or a deadline that passed.
 */
describe('parked runs: a run waiting for an approval costs nothing until it is decided (PostgreSQL)', () => {
  let app: OaApp;
  const scripted = (script: unknown[]) => ({ model: { provider: 'scripted', script } });
  const pay = (id: string, amount: number) => ({ name: 'oa__purchase_pay', args: { id, amount } });
  const createAgent = async (config: Record<string, unknown>) => {
    const res = await app.t.request('POST', '/api/agents', {
      token: app.admin,
      body: { name: `parker-${Date.now()}-${Math.random()}`, model_config_json: { tools: ['oa__*'], ...config } },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const payAgent = (po: string, extra: Record<string, unknown> = {}) =>
    createAgent({ ...scripted([{ tool_calls: [pay(po, 60_000)] }, { content: 'done' }]), ...extra });
  const paysOf = (po: string) => app.oa.requests.filter((r) => r.path === `/purchases/${po}/pay`);
  const decide = (t: TestApp, id: string, decision: 'approve' | 'reject') =>
    t.request('POST', `/api/confirmations/${id}/decision`, { token: app.admin, body: { decision } });
  const runRow = async (runId: string): Promise<RunRow> =>
    (
      await app.db.query<RunRow>(`SELECT status, locked_by, lease_until, parked_on FROM agent_runs WHERE id = $1`, [
        runId,
      ])
    ).rows[0];
  /** Waits for the run to park on `confirmationId` (the park is written right after the card goes out). */
  const parked = (runId: string, confirmationId: string) =>
    until('the run parked', async () => {
      const row = await runRow(runId);
      return row.parked_on?.includes(confirmationId) ? row : undefined;
    });
  const pendingOf = async (run: LiveChat) => {
    const pending = (await run.next('confirmation_pending')).data;
    const runId = run.events[0].data.run_id as string;
    return {
      runId,
      confirmationId: pending.confirmation_id as string,
      row: await parked(runId, pending.confirmation_id),
    };
  };
  const eventsOf = (run: LiveChat, type: string) => run.events.filter((e) => e.event === type).map((e) => e.data);

  beforeAll(async () => {
    // Recovery a minute away: what continues a parked run here is its decision's claim, or its deadline's.
    app = await startOaApp((req) => ({ ok: true, path: req.path }), {
      env: { RUN_RECOVERY_MS: '60000' },
      imports: [RuntimeTestHooksModule],
    });
  });
  afterAll(async () => app?.close());

  it('parks with no lease and no holder; the approval continues it at the gate: hooks before the gate ran once, paid once', async () => {
    const agent = await payAgent('PO-P1', { hooks: { class_hooks: ['test_note'] } });
    const run = openChat(app.t, app.admin, { agent_id: agent, message: 'pay PO-P1' });
    const { runId, confirmationId, row } = await pendingOf(run);
    expect(row).toMatchObject({ status: 'waiting', locked_by: null, lease_until: null, parked_on: [confirmationId] });
    expect(app.t.app.get(RunExecutor).isDriving(runId)).toBe(false);

    expect((await decide(app.t, confirmationId, 'approve')).status).toBe(200);
    await run.finished;
    expect(paysOf('PO-P1').map((r) => r.body)).toEqual([{ amount: 60_000 }]);
    const hooks = eventsOf(run, 'hook').filter((h) => h.point === 'PreToolUse');
    expect(hooks.map((h) => [h.hook, h.outcome])).toEqual([
      ['read_only_guard', 'allow'],
      ['test_note', 'allow'],
      ['confirmation_gate', 'allow'],
    ]);
    expect(eventsOf(run, 'confirmation_resolved')).toHaveLength(1);
    expect(await runRow(runId)).toMatchObject({ status: 'completed', parked_on: null });
  });

  it('a rate limit of one call is counted once: the call resumed at the gate is not counted again', async () => {
    const agent = await payAgent('PO-RL', {
      hooks: { class_hooks: [{ name: 'connector_rate_limit', config: { points: 1, duration_s: 600 } }] },
    });
    const run = openChat(app.t, app.admin, { agent_id: agent, message: 'pay PO-RL' });
    const { confirmationId } = await pendingOf(run);
    expect((await decide(app.t, confirmationId, 'approve')).status).toBe(200);
    await run.finished;
    expect(paysOf('PO-RL')).toHaveLength(1);
    expect(eventsOf(run, 'observation')[0]).toMatchObject({ blocked: false });
  });

  it('a hook that kept the args object cannot change what a parked run sends: exactly the approved args are paid', async () => {
    const agent = await payAgent('PO-MUT', { hooks: { class_hooks: ['test_mutate_after_approval'] } });
    const run = openChat(app.t, app.admin, { agent_id: agent, message: 'pay PO-MUT' });
    const { confirmationId } = await pendingOf(run);
    app.t.app.get(TestMutateAfterApprovalHook).changeHeldArgs();
    expect((await decide(app.t, confirmationId, 'approve')).status).toBe(200);
    await run.finished;
    expect(paysOf('PO-MUT').map((r) => r.body)).toEqual([{ amount: 60_000 }]);
  });

  it('two calls of one turn park together; each approval continues the run, which parks again on the other', async () => {
    const agent = await createAgent(
      scripted([{ tool_calls: [pay('PO-T1', 60_000), pay('PO-T2', 70_000)] }, { content: 'done' }]),
    );
    const run = openChat(app.t, app.admin, { agent_id: agent, message: 'pay both' });
    const runId = (await run.next('run')).data.run_id as string;
    // The two calls run side by side: their requests come in either order.
    const ids = await until('two requests', () => {
      const pending = eventsOf(run, 'confirmation_pending');
      const of = (po: string) =>
        pending.find((p) => (p.args as { id: string }).id === po)?.confirmation_id as string | undefined;
      return pending.length === 2 ? [of('PO-T1')!, of('PO-T2')!] : undefined;
    });
    await until('parked on both', async () => ((await runRow(runId)).parked_on?.length === 2 ? true : undefined));
    expect((await decide(app.t, ids[0], 'approve')).status).toBe(200);
    // Resumed, paid the approved call, and parked again on the other one alone.
    await until('parked again on the other call', async () =>
      (await runRow(runId)).parked_on?.join() === ids[1] ? true : undefined,
    );
    expect(paysOf('PO-T1')).toHaveLength(1);
    expect((await decide(app.t, ids[1], 'reject')).status).toBe(200);
    await run.finished;
    expect(paysOf('PO-T2')).toHaveLength(0);
    expect((await runRow(runId)).status).toBe('completed');
  });

  it('past its deadline a parked approval expires: the instance that parked it resumes it, the call is blocked, nothing is paid', async () => {
    const agent = await payAgent('PO-EXP', { confirmation: { timeout_s: 1 } });
    const run = openChat(app.t, app.admin, { agent_id: agent, message: 'pay PO-EXP' });
    const { confirmationId } = await pendingOf(run);
    await run.finished;
    expect(eventsOf(run, 'confirmation_resolved')[0]).toMatchObject({
      confirmation_id: confirmationId,
      status: 'expired',
    });
    expect(eventsOf(run, 'observation')[0]).toMatchObject({ blocked: true, blocked_by: 'confirmation_gate' });
    expect(paysOf('PO-EXP')).toHaveLength(0);
    expect((await decide(app.t, confirmationId, 'approve')).status).toBe(409);
  });

  it('a cancelled parked run ends cancelled, its approval expires (a later click gets 409), nothing is paid', async () => {
    const agent = await payAgent('PO-CXL');
    const run = openChat(app.t, app.admin, { agent_id: agent, message: 'pay PO-CXL' });
    const { runId, confirmationId } = await pendingOf(run);
    expect((await app.t.request('POST', `/api/runs/${runId}/cancel`, { token: app.admin })).status).toBeLessThan(300);
    await run.finished;
    expect(await runRow(runId)).toMatchObject({ status: 'cancelled', parked_on: null });
    expect((await decide(app.t, confirmationId, 'approve')).status).toBe(409);
    expect(paysOf('PO-CXL')).toHaveLength(0);
  });

  describe('with a second instance on the same database', () => {
    let second: TestApp | undefined;
    beforeAll(async () => {
      second = await startTestApp(
        { RUN_RECOVERY_MS: '200' },
        { databaseUrl: app.t.databaseUrl, imports: [RuntimeTestHooksModule] },
      );
    });
    afterAll(async () => second?.close());

    it('a decision nobody claimed (written straight to the database) is picked up by recovery (on the second instance)', async () => {
      const agent = await payAgent('PO-SQL');
      const run = openChat(app.t, app.admin, { agent_id: agent, message: 'pay PO-SQL' });
      const { confirmationId } = await pendingOf(run);
      // No event, no NOTIFY: only the recovery loop can notice. With the grant an approval carries (an approval
      // without one authorizes nothing: test/e2e/authorization-kernel.e2e.ts).
      await app.db.query(
        `UPDATE confirmation_requests SET status = 'approved', approvals_given = approvals_required, responded_at = now(), responded_by_name = 'ops',
                grants = jsonb_build_array(jsonb_build_object('kind', 'vote', 'principal', requested_by, 'digest', args_digest,
                                                              'policyVersion', policy_version, 'tier', tier))
          WHERE id = $1`,
        [confirmationId],
      );
      await run.finished;
      expect(paysOf('PO-SQL')).toHaveLength(1);
    });

    it('the instance that takes the decision continues the run: paid exactly once, though both hear of it', async () => {
      const agent = await payAgent('PO-B1');
      const run = openChat(app.t, app.admin, { agent_id: agent, message: 'pay PO-B1' });
      const { runId, confirmationId } = await pendingOf(run);
      expect((await decide(second!, confirmationId, 'approve')).status).toBe(200);
      await run.finished;
      await until('the run completed', async () => ((await runRow(runId)).status === 'completed' ? true : undefined));
      expect(paysOf('PO-B1')).toHaveLength(1);
    });

    it('a run parked here, then driven on and parked again there, is rebuilt (not revived stale) when decided here', async () => {
      const script = [
        { tool_calls: [pay('PO-X1', 60_000)] },
        { tool_calls: [pay('PO-X2', 70_000)] },
        { content: 'done' },
      ];
      const run = openChat(app.t, app.admin, { agent_id: await createAgent(scripted(script)), message: 'pay twice' });
      const first = await pendingOf(run);
      // Decided on the second instance, which resumes the run (this one does not hear of it: it could claim first),
      // pays, asks the model again and parks on the next call.
      const resumer = app.t.app.get(ParkedRunResumer);
      const hear = resumer.onNotified.bind(resumer);
      resumer.onNotified = () => undefined;
      try {
        expect((await decide(second!, first.confirmationId, 'approve')).status).toBe(200);
        const next = await until(
          'the second request',
          () => eventsOf(run, 'confirmation_pending')[1]?.confirmation_id as string | undefined,
        );
        await parked(first.runId, next);
      } finally {
        resumer.onNotified = hear;
      }
      const next = eventsOf(run, 'confirmation_pending')[1].confirmation_id as string;
      // Decided here, where the copy of the run from before the first decision is kept: it must not be used.
      expect((await decide(app.t, next, 'approve')).status).toBe(200);
      await run.finished;
      expect(await runRow(first.runId)).toMatchObject({ status: 'completed' });
      expect([paysOf('PO-X1').length, paysOf('PO-X2').length]).toEqual([1, 1]);
      expect(eventsOf(run, 'confirmation_pending')).toHaveLength(2);
      // One model turn each: a stale copy would ask the model again from the first turn's conversation.
      expect(eventsOf(run, 'tool_call').map((c) => (c.args as { id: string }).id)).toEqual(['PO-X1', 'PO-X2']);
      expect(eventsOf(run, 'answer').at(-1)).toMatchObject({ content: 'done' });
    });
  });
});
