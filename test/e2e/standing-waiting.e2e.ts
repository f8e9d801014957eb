import type { HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import type { TestApp } from '../support/test-app.js';
import { startOaApp, type OaApp } from './oa-app.js';
import { openChat, type LiveChat } from './runtime-helpers.js';

const TWO_ADMINS_OVER_500K = {
  approvers: ['org_members'],
  tiers: [{ when: 'args.amount > 500000', approvals: 2, approvers: ['org_admins'] }],
};

/**
 * #28: "also approve similar calls in this run" covers the calls of the run already waiting when it is given (not
 * only later ones), with the same limits: same tool, same tier and policy version, never a stricter tier, the
 * granter must be an approver of each request. Each covered request is settled, audited and leaves the inbox.
 */
describe('standing approval covers the calls already waiting (PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let app: OaApp;
  let admin: string;
  let bob: string;

  const pay = (id: string, amount: number) => ({ name: 'oa__purchase_pay', args: { id, amount } });
  const paid = (po: string) => oa.requests.filter((r) => r.path === `/purchases/${po}/pay`).map((r) => r.body.amount);
  const pendings = (run: LiveChat) => run.events.filter((e) => e.event === 'confirmation_pending').map((e) => e.data);
  const byPo = (run: LiveChat, po: string) => pendings(run).find((p) => p.args.id === po)!.confirmation_id as string;
  const request = async (id: string) => (await t.request('GET', `/api/confirmations/${id}`, { token: admin })).body;
  const decide = (id: string, body: Record<string, unknown>, token = admin) =>
    t.request('POST', `/api/confirmations/${id}/decision`, { token, body });

  beforeAll(async () => {
    app = await startOaApp((req) => ({ paid: true, body: req.body }));
    ({ t, oa, admin } = app);
    await t.token('carol', 'acme', ['admin'], { name: 'Carol' });
    bob = await t.token('bob', 'acme', [], { name: 'Bob' });
  });
  afterAll(async () => app?.close());

  it('a grant settles the waiting call of its tier, leaves the stricter-tier one pending, and both go as decided', async () => {
    const calls = [pay('W-1', 60_000), pay('W-2', 70_000), pay('W-3', 900_000)];
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'standing-waiting',
        model_config_json: {
          tools: ['oa__*'],
          model: { provider: 'scripted', script: [{ tool_calls: calls }, { content: 'done' }] },
          confirmation: TWO_ADMINS_OVER_500K,
        },
      },
    });
    expect(res.status).toBe(201);
    const run = openChat(t, admin, { agent_id: res.body.id, message: 'pay three' });
    await until('three requests waiting', () => pendings(run).length === 3 || undefined, 20_000);
    const [w1, w2, w3] = ['W-1', 'W-2', 'W-3'].map((po) => byPo(run, po));

    const granted = await decide(w1, { decision: 'approve', standing: { when: 'args.amount <= 1000000' } }, bob);
    expect(granted.status).toBe(200);
    const covered = await until(
      'W-2 covered',
      async () => ((await request(w2)).status === 'approved' ? request(w2) : undefined),
      15_000,
    );
    expect(covered.responded_by).toMatch(/^Bob \(standing approval #[0-9a-f-]+\)$/);
    expect(covered.approvals_given).toBe(1);
    // W-3 needs two admins: a member's standing grant does not cover it.
    expect(await request(w3)).toMatchObject({ status: 'pending', tier: 0, approvals_required: 2, approvals_given: 0 });
    const inbox = (await t.request('GET', '/api/confirmations?status=pending', { token: admin })).body as Array<{
      id: string;
    }>;
    expect(inbox.map((r) => r.id)).toEqual([w3]);

    const events = await app.db.query(
      `SELECT action, payload->>'call_id' AS call_id FROM audit_events WHERE entity_id = $1 OR entity_id = $2 ORDER BY seq`,
      [w1, w2],
    );
    const actions = events.rows.map((r: { action: string }) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['standing_approval.granted', 'standing_approval.used']));
    expect(actions.filter((a: string) => a.endsWith('approved'))).toHaveLength(2);

    expect((await decide(w3, { decision: 'reject' })).status).toBe(200);
    await run.finished;
    expect(paid('W-1')).toEqual([60_000]);
    expect(paid('W-2')).toEqual([70_000]);
    expect(paid('W-3')).toEqual([]);
  });
});
