import { startOaApp, type OaApp } from './oa-app.js';
import type { HttpFake } from '../fakes/http-fake.js';
import type { TestApp } from '../support/test-app.js';
import { openChat, type LiveChat } from './runtime-helpers.js';

/**
 * Reassignment never lowers the bar (issue #28, break 6): a 2-approval tier of admins could be handed by one admin,
 * after his own approval, to any member, whose vote completed the two. A request can only be handed to someone its
 * approver policy already allows, and never so that fewer distinct people approve it.
 */
describe('reassignment keeps the approver policy and the number of distinct approvers (PostgreSQL)', () => {
  let app: OaApp;
  let t: TestApp;
  let oa: HttpFake;
  const tokens: Record<string, string> = {};

  const paysOf = (po: string) => oa.requests.filter((r) => r.path === `/purchases/${po}/pay`);
  const decide = (id: string, who: string, decision: 'approve' | 'reject' = 'approve') =>
    t.request('POST', `/api/confirmations/${id}/decision`, { token: tokens[who], body: { decision } });
  const reassign = (id: string, who: string, to: string) =>
    t.request('POST', `/api/confirmations/${id}/reassign`, { token: tokens[who], body: { to } });

  /** A chat paying `po` 69 000: over the tier `amount > 50000`, which needs two admins. */
  const payRun = async (po: string): Promise<{ run: LiveChat; id: string }> => {
    const agent = await t.request('POST', '/api/agents', {
      token: tokens.alice,
      body: {
        name: `reassign-${po}`,
        model_config_json: {
          tools: ['oa__*'],
          model: {
            provider: 'scripted',
            script: [
              { tool_calls: [{ name: 'oa__purchase_pay', args: { id: po, amount: 69_000 } }] },
              { content: 'done' },
            ],
          },
          confirmation: { approvers: ['org_admins'], tiers: [{ when: 'args.amount > 50000', approvals: 2 }] },
        },
      },
    });
    expect(agent.status).toBe(201);
    const run = openChat(t, tokens.alice, { agent_id: agent.body.id, message: `pay ${po}` });
    return { run, id: (await run.next('confirmation_pending')).data.confirmation_id };
  };

  beforeAll(async () => {
    app = await startOaApp(() => ({ paid: true }));
    ({ t, oa } = app);
    tokens.alice = app.admin;
    for (const [sub, roles] of [
      ['bea', ['admin']],
      ['carl', ['admin']],
      ['mo', []],
    ] as const) {
      tokens[sub] = await t.token(sub, 'acme', [...roles], { name: sub[0].toUpperCase() + sub.slice(1) });
      expect((await t.request('GET', '/api/me', { token: tokens[sub] })).status).toBe(200);
    }
  });
  afterAll(async () => app?.close());

  it('break 6: an admin who approved cannot hand the second approval to a member; the member cannot complete the two', async () => {
    const { run, id } = await payRun('PO-R6');
    expect((await decide(id, 'alice')).status).toBe(200);

    const toMember = await reassign(id, 'alice', 'mo');
    expect(toMember.status).toBe(400);
    expect(toMember.body.message).toMatch(/mo may not approve this request: only organisation admins may decide/);
    expect((await decide(id, 'mo')).status).toBe(403);

    // Even to an admin: who already approved has no say left to hand over (he would pick his co-approver).
    const toAdmin = await reassign(id, 'alice', 'bea');
    expect(toAdmin.status).toBe(409);
    expect(toAdmin.body.message).toMatch(/you have already approved/);
    const row = (await t.request('GET', `/api/confirmations/${id}`, { token: tokens.alice })).body;
    expect(row).toMatchObject({ status: 'pending', approvers: ['org_admins'], approvals_given: 1, history: [] });
    expect(paysOf('PO-R6')).toHaveLength(0);

    expect((await decide(id, 'bea')).status).toBe(200);
    await run.finished;
    expect(paysOf('PO-R6')).toHaveLength(1);
  });

  it('a hand-over that would leave fewer distinct approvers is a 409: two approvals still missing, or a target who voted', async () => {
    const { run, id } = await payRun('PO-R6B');
    const twoMissing = await reassign(id, 'alice', 'bea');
    expect(twoMissing.status).toBe(409);
    expect(twoMissing.body.message).toMatch(/needs 2 more approvals: one person cannot give them/);

    expect((await decide(id, 'alice')).status).toBe(200);
    const toVoter = await reassign(id, 'bea', 'alice');
    expect(toVoter.status).toBe(409);
    expect(toVoter.body.message).toMatch(/alice has already voted on this request/);
    expect((await decide(id, 'bea', 'reject')).status).toBe(200);
    await run.finished;
    expect(paysOf('PO-R6B')).toHaveLength(0);
  });

  it('an admin who has not voted may hand the last approval to another admin: two distinct admins approve', async () => {
    const { run, id } = await payRun('PO-R6C');
    expect((await decide(id, 'alice')).status).toBe(200);
    const moved = await reassign(id, 'bea', 'carl');
    expect(moved.status).toBe(200);
    expect(moved.body.approvers).toEqual(['users:carl']);
    expect((await decide(id, 'bea')).status).toBe(403);
    expect((await decide(id, 'carl')).status).toBe(200);
    await run.finished;
    expect(paysOf('PO-R6C')).toHaveLength(1);
    const votes = (await t.request('GET', `/api/confirmations/${id}`, { token: tokens.alice })).body.votes;
    expect(votes.map((v: { name: string }) => v.name)).toEqual(['Alice', 'Carl']);
  });
});
