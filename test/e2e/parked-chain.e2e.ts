import { ParkedRunResumer } from '@warden/agents';
import { startOaApp, type OaApp } from './oa-app.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { openChat, RuntimeTestHooksModule, type LiveChat } from './runtime-helpers.js';

/**
 * #28 break 14: a call parked at the gate is decided, when it resumes, by the hook chain in force then — on whichever
 * instance claims it, whether that instance kept the parked run in memory or rebuilds it. A chain changed while the
 * call waited runs its hooks before the gate again (rate limits are not counted twice); a rewrite that no longer
 * gives the approved call denies it.
 */
describe('a parked call resumes under the chain in force, on any instance (PostgreSQL)', () => {
  let app: OaApp;
  let second: TestApp;
  const pay = (id: string) => ({ name: 'oa__purchase_pay', args: { id, amount: 60_000 } });
  const config = (po: string, hooks: Record<string, unknown>) => ({
    model: { provider: 'scripted', script: [{ tool_calls: [pay(po)] }, { content: 'done' }] },
    tools: ['oa__*'],
    hooks,
  });
  const paysOf = (po: string) => app.oa.requests.filter((r) => r.path === `/purchases/${po}/pay`);
  const parkedOn = async (runId: string) =>
    (await app.db.query<{ parked_on: string[] | null }>(`SELECT parked_on FROM agent_runs WHERE id = $1`, [runId]))
      .rows[0].parked_on;

  /** Two identical runs of one agent, both parked at the gate on their own approval. */
  async function twoParkedRuns(po: string, hooks: Record<string, unknown>) {
    const name = `${po}-agent`;
    const created = await app.t.request('POST', '/api/agents', {
      token: app.admin,
      body: { name, model_config_json: config(po, hooks) },
    });
    expect(created.status).toBe(201);
    const runs: Array<{ chat: LiveChat; runId: string; confirmationId: string }> = [];
    for (let i = 0; i < 2; i++) {
      const chat = openChat(app.t, app.admin, { agent_id: created.body.id, message: `pay ${po}` });
      const confirmationId = (await chat.next('confirmation_pending')).data.confirmation_id as string;
      const runId = chat.events[0].data.run_id as string;
      await until('the run parked', async () => ((await parkedOn(runId))?.includes(confirmationId) ? true : undefined));
      runs.push({ chat, runId, confirmationId });
    }
    const changeHooks = async (next: Record<string, unknown>) => {
      const res = await app.t.request('PUT', `/api/agents/${created.body.id}`, {
        token: app.admin,
        body: { name, model_config_json: config(po, next) },
      });
      expect(res.status).toBe(200);
    };
    return { runs, changeHooks };
  }

  /** Approves on `on`; the other instance does not hear of it until `on` has claimed the run. */
  async function approveOn(on: TestApp, other: TestApp, run: { runId: string; confirmationId: string }) {
    const resumer = other.app.get(ParkedRunResumer);
    const hear = resumer.onNotified.bind(resumer);
    resumer.onNotified = () => undefined;
    try {
      const res = await on.request('POST', `/api/confirmations/${run.confirmationId}/decision`, {
        token: app.admin,
        body: { decision: 'approve' },
      });
      expect(res.status).toBe(200);
      await until('claimed', async () =>
        (await parkedOn(run.runId))?.includes(run.confirmationId) ? undefined : true,
      );
    } finally {
      resumer.onNotified = hear;
    }
  }

  /** R1 resumes where it parked (the run kept in memory), R2 on the other instance (rebuilt): their observations. */
  async function resumeOnBoth(runs: Array<{ chat: LiveChat; runId: string; confirmationId: string }>) {
    await approveOn(app.t, second, runs[0]);
    await approveOn(second, app.t, runs[1]);
    const observations = [];
    for (const run of runs) {
      await run.chat.finished;
      observations.push(run.chat.events.find((e) => e.event === 'observation')!.data);
    }
    return observations.map(({ blocked, blocked_by, content }) => ({ blocked, blocked_by, content }));
  }

  beforeAll(async () => {
    app = await startOaApp((req) => ({ ok: true, path: req.path }), {
      env: { RUN_RECOVERY_MS: '60000' },
      imports: [RuntimeTestHooksModule],
    });
    second = await startTestApp(
      { RUN_RECOVERY_MS: '60000' },
      { databaseUrl: app.t.databaseUrl, imports: [RuntimeTestHooksModule] },
    );
  });
  afterAll(async () => {
    await second?.close();
    await app?.close();
  });

  it('a blocking hook added while the calls waited blocks both resumed calls, on either instance: nothing is paid', async () => {
    const { runs, changeHooks } = await twoParkedRuns('PO-K1', { class_hooks: ['test_note'] });
    await changeHooks({
      class_hooks: ['test_note', { name: 'test_block_tool', config: { tool: 'oa__purchase_pay' } }],
    });
    const [first, other] = await resumeOnBoth(runs);
    expect(first).toEqual({
      blocked: true,
      blocked_by: 'test_block_tool',
      content: 'Tool call blocked by test_block_tool: oa__purchase_pay is not allowed in tests',
    });
    expect(other).toEqual(first);
    expect(paysOf('PO-K1')).toHaveLength(0);
  });

  it('a rewrite added while the calls waited no longer gives the approved call: both are denied, naming why', async () => {
    const { runs, changeHooks } = await twoParkedRuns('PO-K2', {});
    await changeHooks({
      class_hooks: [{ name: 'test_rewrite_args', config: { tool: 'oa__purchase_pay', set: { amount: 90_000 } } }],
    });
    const [first, other] = await resumeOnBoth(runs);
    expect(first).toMatchObject({ blocked: true, blocked_by: 'confirmation_gate' });
    expect(first.content).toBe(
      'Tool call blocked by confirmation_gate: the hooks changed while the call waited for its approval and now make it a ' +
        'different call than the one approved: it was not sent',
    );
    expect(other).toEqual(first);
    expect(paysOf('PO-K2')).toHaveLength(0);
  });

  it('a changed chain that gives the same call lets both run; the rate limit is not counted again on the rerun', async () => {
    const limit = { name: 'connector_rate_limit', config: { points: 2, duration_s: 600 } };
    const { runs, changeHooks } = await twoParkedRuns('PO-K3', { class_hooks: [limit] });
    await changeHooks({ class_hooks: [limit, 'test_note'] });
    const [first, other] = await resumeOnBoth(runs);
    expect(first).toMatchObject({ blocked: false });
    expect(other).toEqual(first);
    expect(paysOf('PO-K3').map((r) => r.body)).toEqual([{ amount: 60_000 }, { amount: 60_000 }]);
    const rerun = runs[0].chat.events
      .filter((e) => e.event === 'hook' && e.data.point === 'PreToolUse')
      .map((e) => e.data.hook);
    expect(rerun.filter((h) => h === 'test_note')).toHaveLength(1);
  });
});
