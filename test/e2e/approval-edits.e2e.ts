import { startOaApp, type OaApp } from './oa-app.js';
import type pg from 'pg';
import type { HttpFake } from '../fakes/http-fake.js';
import type { TestApp } from '../support/test-app.js';
import { openChat, type LiveChat } from './runtime-helpers.js';

/**
 * Approve with changes (issue #20, acceptance 1): the approver lowers 68 000 to 60 000; the connector receives
 * 60 000 exactly once, the row holds the edit (before / after / by whom), the model reads that the call ran with the
 * approver's changes; an edit the action's parameter schema refuses is a 400 that decides nothing.
 */
describe('approve with changes (PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let admin: string;
  let db: pg.Client;

  const payScript = (args: Record<string, unknown>) => ({
    model: {
      provider: 'scripted',
      script: [{ tool_calls: [{ name: 'oa__purchase_pay', args }] }, { content: 'done' }],
    },
  });
  const createAgent = async (config: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name: `payer-${Date.now()}-${Math.random()}`, model_config_json: { tools: ['oa__*'], ...config } },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const paysOf = (po: string) => oa.requests.filter((r) => r.path === `/purchases/${po}/pay`);
  const decide = (id: string, body: Record<string, unknown>, token = admin) =>
    t.request('POST', `/api/confirmations/${id}/decision`, { token, body });
  const pendingOf = async (run: LiveChat) => (await run.next('confirmation_pending')).data;

  let app: OaApp;
  beforeAll(async () => {
    app = await startOaApp((req) => ({ paid: true, body: req.body }));
    ({ t, oa, db, admin } = app);
  });
  afterAll(async () => app?.close());

  it('approve with {amount: 60000}: the connector receives 60 000 exactly once, the row holds the edit, the model is told', async () => {
    const agent = await createAgent(payScript({ id: 'PO-1002', amount: 68_000 }));
    const run = openChat(t, admin, { agent_id: agent, message: 'pay PO-1002' });
    const pending = await pendingOf(run);
    expect(pending.args).toEqual({ id: 'PO-1002', amount: 68_000 });
    const shown = (await t.request('GET', `/api/confirmations/${pending.confirmation_id}`, { token: admin })).body;
    expect(shown.args_schema).toMatchObject({ properties: { amount: { type: 'number' } } });

    const res = await decide(pending.confirmation_id, {
      decision: 'approve',
      args: { id: 'PO-1002', amount: 60_000 },
      reason: 'budget cap',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'approved',
      args: { id: 'PO-1002', amount: 60_000 },
      original_args: { id: 'PO-1002', amount: 68_000 },
      edited_by: 'Alice',
    });
    const events = await run.finished;
    expect(paysOf('PO-1002').map((r) => r.body)).toEqual([{ amount: 60_000 }]);

    const resolved = events.find((e) => e.event === 'confirmation_resolved')!.data;
    expect(resolved).toMatchObject({ status: 'approved', args: { id: 'PO-1002', amount: 60_000 }, edited_by: 'Alice' });
    const observation = events.find((e) => e.event === 'observation')!.data;
    expect(observation).toMatchObject({ blocked: false, args: { id: 'PO-1002', amount: 60_000 } });
    expect(observation.content).toContain('Alice approved this call with changes (amount: 68000 -> 60000)');
    const gateHook = events.find((e) => e.event === 'hook' && e.data.hook === 'confirmation_gate')!.data;
    expect(gateHook).toMatchObject({ outcome: 'rewrite', side_effects: ['approved with changes by Alice'] });

    const { rows } = await db.query(
      `SELECT args, original_args, edited_by_name, args_digest FROM confirmation_requests WHERE id = $1`,
      [pending.confirmation_id],
    );
    expect(rows[0]).toMatchObject({
      args: { id: 'PO-1002', amount: 60_000 },
      original_args: { id: 'PO-1002', amount: 68_000 },
      edited_by_name: 'Alice',
    });
    const { rows: calls } = await db.query(`SELECT executed_args, result FROM tool_calls WHERE call_id = $1`, [
      pending.call_id,
    ]);
    expect(calls[0].executed_args).toEqual({ id: 'PO-1002', amount: 60_000 });
    expect(calls[0].result).toContain('approved this call with changes');
  });

  it('an edit that breaks the schema is a 400 naming the field; nothing is decided, and the request can still be decided', async () => {
    const agent = await createAgent(payScript({ id: 'PO-BAD', amount: 68_000 }));
    const run = openChat(t, admin, { agent_id: agent, message: 'pay PO-BAD' });
    const pending = await pendingOf(run);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ decision: 'approve', args: { id: 'PO-BAD', amount: 'sixty thousand' } }, /args\.amount must be number/],
      [{ decision: 'approve', args: { amount: 60_000 } }, /must have required property 'id'/],
      [{ decision: 'approve', args: ['PO-BAD', 60_000] }, /args must be a JSON object/],
      [{ decision: 'reject', args: { id: 'PO-BAD', amount: 1 } }, /only be given with decision "approve"/],
    ];
    for (const [body, message] of cases) {
      const res = await decide(pending.confirmation_id, body);
      expect(res.status).toBe(400);
      expect([res.body.message].flat().join(' ')).toMatch(message);
    }
    const row = (await t.request('GET', `/api/confirmations/${pending.confirmation_id}`, { token: admin })).body;
    expect(row).toMatchObject({
      status: 'pending',
      args: { id: 'PO-BAD', amount: 68_000 },
      original_args: null,
      approvals_given: 0,
      votes: [],
    });
    expect(paysOf('PO-BAD')).toHaveLength(0);
    expect((await decide(pending.confirmation_id, { decision: 'reject' })).status).toBe(200);
    await run.finished;
    expect(paysOf('PO-BAD')).toHaveLength(0);
  });

  it('a request needing two approvals cannot be approved with changes (the other approver saw other args)', async () => {
    const agent = await createAgent({
      ...payScript({ id: 'PO-TWO', amount: 68_000 }),
      confirmation: { approvers: ['org_admins'], tiers: [{ when: 'args.amount > 50000', approvals: 2 }] },
    });
    const run = openChat(t, admin, { agent_id: agent, message: 'pay PO-TWO' });
    const pending = await pendingOf(run);
    const res = await decide(pending.confirmation_id, { decision: 'approve', args: { id: 'PO-TWO', amount: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/needs 2 distinct approvals/);
    expect((await decide(pending.confirmation_id, { decision: 'reject' })).status).toBe(200);
    await run.finished;
    expect(paysOf('PO-TWO')).toHaveLength(0);
  });
});
