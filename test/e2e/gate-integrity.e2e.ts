import { startOaApp, type OaApp } from './oa-app.js';
import { actionDigest } from '@warden/hooks';
import path from 'node:path';
import type pg from 'pg';
import type { HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import type { TestApp } from '../support/test-app.js';
import { openChat, RuntimeTestHooksModule, TestMutateAfterApprovalHook, type LiveChat } from './runtime-helpers.js';

const HOOKS_DIR = path.resolve('test/fixtures/hooks');

/**
 * No path around the gate: the gate runs last and decides on the args that will be sent, an approval is bound to
 * exactly those args (digest of tool + canonical args, re-checked before the request leaves).
 */
describe('gate integrity: the gate sees the final action, approvals bind to what runs (PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let admin: string;
  let db: pg.Client;

  const scripted = (script: unknown[]) => ({ model: { provider: 'scripted', script } });
  const payScript = (args: Record<string, unknown>) =>
    scripted([{ tool_calls: [{ name: 'oa__purchase_pay', args }] }, { content: 'done' }]);
  const createAgent = async (config: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name: `payer-${Date.now()}-${Math.random()}`, model_config_json: { tools: ['oa__*'], ...config } },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const paysOf = (po: string) => oa.requests.filter((r) => r.path === `/purchases/${po}/pay`);
  const decide = (id: string, decision: 'approve' | 'reject') =>
    t.request('POST', `/api/confirmations/${id}/decision`, { token: admin, body: { decision } });
  const auditRows = (runId: string) =>
    until('audit rows', async () => {
      const res = await t.request('GET', `/api/audit/connector-calls?run_id=${runId}`, { token: admin });
      return res.body.length > 0 ? (res.body as Array<Record<string, any>>) : undefined;
    });
  const observation = (run: LiveChat) => run.next('observation').then((e) => e.data);

  let app: OaApp;
  beforeAll(async () => {
    app = await startOaApp((req) => ({ ok: true, path: req.path }), {
      env: { HOOKS_DIR },
      imports: [RuntimeTestHooksModule],
    });
    ({ t, oa, db, admin } = app);
  });
  afterAll(async () => app?.close());

  it('break 2: a priority-1 hook turning 10 000 USD into 72 000 CNY gets a card for 72 000, and only the approved args are paid', async () => {
    const agent = await createAgent({
      ...payScript({ id: 'PO-C1', amount: 10_000, currency: 'USD' }),
      hooks: { class_hooks: ['test_usd_to_cny'] },
    });
    const run = openChat(t, admin, { agent_id: agent, message: 'pay PO-C1' });
    const pending = (await run.next('confirmation_pending')).data;
    expect(pending.args).toEqual({ id: 'PO-C1', amount: 72_000, currency: 'CNY' });
    expect(paysOf('PO-C1')).toHaveLength(0);
    const row = (await t.request('GET', `/api/confirmations/${pending.confirmation_id}`, { token: admin })).body;
    expect(row.args).toEqual({ id: 'PO-C1', amount: 72_000, currency: 'CNY' });
    expect((await decide(pending.confirmation_id, 'approve')).status).toBe(200);
    await run.finished;
    expect(paysOf('PO-C1').map((r) => r.body)).toEqual([{ amount: 72_000, currency: 'CNY' }]);
  });

  it.each([1, 50])(
    'break 3: a YAML hook rewriting the amount at priority %s runs before the gate; the card shows the rewritten args and exactly they are paid',
    async (priority) => {
      const po = `PO-Y${priority}`;
      const yaml = [
        'hooks:',
        '  - name: usd-to-cny',
        '    event: PreToolUse',
        '    module: ./usd-to-cny.mjs',
        ...(priority === 50 ? [] : [`    priority: ${priority}`]),
      ].join('\n');
      const agent = await createAgent({ ...payScript({ id: po, amount: 60_000, currency: 'USD' }), hooks: { yaml } });
      const run = openChat(t, admin, { agent_id: agent, message: `pay ${po}` });
      const pending = (await run.next('confirmation_pending')).data;
      expect(pending.args).toEqual({ id: po, amount: 432_000, currency: 'CNY' });
      expect((await decide(pending.confirmation_id, 'approve')).status).toBe(200);
      await run.finished;
      const hooks = run.events
        .filter((e) => e.event === 'hook' && e.data.point === 'PreToolUse')
        .map((e) => e.data.hook);
      expect(hooks.at(-1)).toBe('confirmation_gate');
      expect(hooks.indexOf('usd-to-cny')).toBeLessThan(hooks.indexOf('confirmation_gate'));
      expect(paysOf(po).map((r) => r.body)).toEqual([{ amount: 432_000, currency: 'CNY' }]);
    },
  );

  it('the gate decides on the rewritten args: a rewrite that lowers the amount under the threshold needs no card', async () => {
    const agent = await createAgent({
      ...payScript({ id: 'PO-LOW', amount: 90_000 }),
      hooks: {
        class_hooks: [{ name: 'test_rewrite_args', config: { tool: 'oa__purchase_pay', set: { amount: 100 } } }],
      },
    });
    const run = openChat(t, admin, { agent_id: agent, message: 'pay PO-LOW' });
    await run.finished;
    expect(run.events.some((e) => e.event === 'confirmation_pending')).toBe(false);
    expect(paysOf('PO-LOW').map((r) => r.body)).toEqual([{ amount: 100 }]);
  });

  it('a decided row whose args were changed after the card (direct row edit) blocks the call: audited, nothing sent', async () => {
    const agent = await createAgent(payScript({ id: 'PO-EDIT', amount: 60_000 }));
    const run = openChat(t, admin, { agent_id: agent, message: 'pay PO-EDIT' });
    const pending = (await run.next('confirmation_pending')).data;
    // What the approver is shown (and approves) is no longer what the call would send.
    const shown = { id: 'PO-EDIT', amount: 6_000 };
    await db.query(`UPDATE confirmation_requests SET args = $2, args_digest = $3 WHERE id = $1`, [
      pending.confirmation_id,
      JSON.stringify(shown),
      actionDigest('oa__purchase_pay', shown),
    ]);
    expect((await decide(pending.confirmation_id, 'approve')).status).toBe(200);
    const obs = await observation(run);
    expect(obs).toMatchObject({ blocked: true, blocked_by: 'confirmation_gate' });
    expect(obs.content).toMatch(/args changed after approval/);
    await run.finished;
    expect(paysOf('PO-EDIT')).toHaveLength(0);
    const [audit] = await auditRows(pending.run_id ?? run.events[0].data.run_id);
    expect(audit).toMatchObject({ tool: 'oa__purchase_pay', blocked_by: 'confirmation_gate', success: false });
    expect(audit.error).toMatch(/args changed after approval/);
  });

  it('the confirmation row stores the digest of tool + canonical args of what it shows', async () => {
    const agent = await createAgent(payScript({ amount: 70_000, id: 'PO-DIG' }));
    const run = openChat(t, admin, { agent_id: agent, message: 'pay PO-DIG' });
    const pending = (await run.next('confirmation_pending')).data;
    const { rows } = await db.query(`SELECT args, args_digest FROM confirmation_requests WHERE id = $1`, [
      pending.confirmation_id,
    ]);
    expect(rows[0].args_digest).toBe(actionDigest('oa__purchase_pay', { id: 'PO-DIG', amount: 70_000 }));
    expect((await decide(pending.confirmation_id, 'reject')).status).toBe(200);
    await run.finished;
    expect(paysOf('PO-DIG')).toHaveLength(0);
  });
  // A hook can only hold on to the args object while the run waits in its process: a parked run resumes from the
  // args it stored, so this break is tried on an instance where waiting runs do not park.
  describe('with waiting runs kept in process (RUN_PARK_ON_APPROVAL=false)', () => {
    let inProcess: OaApp | undefined;
    beforeAll(async () => {
      inProcess = await startOaApp((req) => ({ ok: true, path: req.path }), {
        env: { HOOKS_DIR, RUN_PARK_ON_APPROVAL: 'false' },
        imports: [RuntimeTestHooksModule],
      });
      ({ t, oa, db, admin } = inProcess);
    });
    afterAll(async () => {
      await inProcess?.close();
      ({ t, oa, db, admin } = app);
    });

    it('args changed in place after the approval was asked (a misbehaving hook) are caught immediately before the send', async () => {
      const agent = await createAgent({
        ...payScript({ id: 'PO-MUT', amount: 60_000 }),
        hooks: { class_hooks: ['test_mutate_after_approval'] },
      });
      const run = openChat(t, admin, { agent_id: agent, message: 'pay PO-MUT' });
      const pending = (await run.next('confirmation_pending')).data;
      expect(pending.args).toEqual({ id: 'PO-MUT', amount: 60_000 });
      inProcess!.t.app.get(TestMutateAfterApprovalHook).changeHeldArgs();
      expect((await decide(pending.confirmation_id, 'approve')).status).toBe(200);
      const obs = await observation(run);
      expect(obs).toMatchObject({ blocked: true, blocked_by: 'confirmation_gate' });
      expect(obs.content).toMatch(/args changed after approval/);
      await run.finished;
      expect(paysOf('PO-MUT')).toHaveLength(0);
      const [audit] = await auditRows(run.events[0].data.run_id);
      expect(audit).toMatchObject({ blocked_by: 'confirmation_gate' });
    });
  });
});
