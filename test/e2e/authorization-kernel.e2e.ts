import { Injectable, Module } from '@nestjs/common';
import { Hook, PreToolUseHook, type HookContext, type HookResult } from '@warden/hooks';
import type { HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import type { TestApp } from '../support/test-app.js';
import { startOaApp, type OaApp } from './oa-app.js';
import { openChat, type LiveChat } from './runtime-helpers.js';

/** Test: an org policy that blocks calls of `tool` whose amount is over `max`. */
@Hook({
  name: 'test_block_over',
  priority: 50,
  description: 'Test: blocks calls of `tool` over `max`.',
  configSchema: {
    type: 'object',
    properties: { tool: { type: 'string' }, max: { type: 'number' } },
    required: ['tool', 'max'],
  },
})
@Injectable()
class TestBlockOverHook extends PreToolUseHook<{ tool: string; max: number }> {
  override shouldTrigger(ctx: HookContext, config: { tool: string }): boolean {
    return ctx.toolName === config.tool;
  }
  execute(ctx: HookContext, config: { max: number }): HookResult {
    const amount = Number(ctx.toolArgs.amount);
    return amount > config.max ? { allow: false, error: `amounts over ${config.max} are not allowed` } : {};
  }
}
@Module({ providers: [TestBlockOverHook] })
class KernelHooksModule {}

const TWO_ADMINS_OVER_500K = {
  approvers: ['org_members'],
  tiers: [{ when: 'args.amount > 500000', approvals: 2, approvers: ['org_admins'] }],
};

/**
 * Issue #28, the authorization kernel: an action leaves Warden only as decided on its final bytes. Each break below
 * was found by using approve-with-changes and standing approvals as a new user would.
 */
describe('authorization kernel (PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let admin: string;
  let carol: string;
  let bob: string;
  let app: OaApp;

  const pay = (id: string, amount: number) => ({ tool_calls: [{ name: 'oa__purchase_pay', args: { id, amount } }] });
  const createAgent = async (script: unknown[], extra: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: `kernel-${Math.random()}`,
        model_config_json: { tools: ['oa__*', 'ask_human'], model: { provider: 'scripted', script }, ...extra },
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const paid = (po: string) => oa.requests.filter((r) => r.path === `/purchases/${po}/pay`).map((r) => r.body.amount);
  const decide = (id: string, body: Record<string, unknown>, token = admin) =>
    t.request('POST', `/api/confirmations/${id}/decision`, { token, body });
  const pendings = (run: LiveChat) => run.events.filter((e) => e.event === 'confirmation_pending').map((e) => e.data);
  const nthPending = (run: LiveChat, n: number) => until(`confirmation ${n}`, () => pendings(run)[n - 1], 15_000);

  beforeAll(async () => {
    app = await startOaApp((req) => ({ paid: true, body: req.body }), { imports: [KernelHooksModule] });
    ({ t, oa, admin } = app);
    carol = await t.token('carol', 'acme', ['admin'], { name: 'Carol' });
    bob = await t.token('bob', 'acme', [], { name: 'Bob' });
    const policy = { class_hooks: [{ name: 'test_block_over', config: { tool: 'oa__purchase_pay', max: 1_000_000 } }] };
    expect((await t.request('PUT', '/api/org/hooks', { token: admin, body: policy })).status).toBe(200);
  });
  afterAll(async () => app?.close());

  it('break 1: an edit re-enters decide — the org policy blocks 60 000 approved "with changes" as 5 000 000', async () => {
    const agent = await createAgent([pay('K-1', 60_000), { content: 'done' }]);
    const run = openChat(t, admin, { agent_id: agent, message: 'pay K-1' });
    const pending = await nthPending(run, 1);
    const res = await decide(pending.confirmation_id, { decision: 'approve', args: { id: 'K-1', amount: 5_000_000 } });
    expect(res.status).toBe(200);
    const events = await run.finished;
    expect(paid('K-1')).toEqual([]);
    const observation = events.find((e) => e.event === 'observation')!.data;
    expect(observation).toMatchObject({ blocked: true, blocked_by: 'test_block_over' });
    expect(observation.content).toContain('amounts over 1000000 are not allowed');
  });

  it('break 2: an edit into a stricter tier needs that tier: a member edits 60 000 to 900 000 → it waits for 2 admins', async () => {
    const agent = await createAgent([pay('K-2', 60_000), { content: 'done' }], { confirmation: TWO_ADMINS_OVER_500K });
    const run = openChat(t, admin, { agent_id: agent, message: 'pay K-2' });
    const pending = await nthPending(run, 1);
    const edited = await decide(
      pending.confirmation_id,
      { decision: 'approve', args: { id: 'K-2', amount: 900_000 } },
      bob,
    );
    expect(edited.status).toBe(200);
    // Rebound to the edited args under tier 0: Bob (a member) does not qualify there, so nothing is approved yet.
    expect(edited.body).toMatchObject({
      status: 'pending',
      args: { id: 'K-2', amount: 900_000 },
      original_args: { id: 'K-2', amount: 60_000 },
      tier: 0,
      approvers: ['org_admins'],
      approvals_required: 2,
      approvals_given: 0,
    });
    expect(paid('K-2')).toEqual([]);
    expect((await decide(pending.confirmation_id, { decision: 'approve' }, admin)).body).toMatchObject({
      status: 'pending',
      approvals_given: 1,
    });
    expect(paid('K-2')).toEqual([]);
    expect((await decide(pending.confirmation_id, { decision: 'approve' }, carol)).body).toMatchObject({
      status: 'approved',
    });
    await run.finished;
    expect(paid('K-2')).toEqual([900_000]);
  });

  it('break 2: an admin editing into the 2-admin tier counts once; the second admin completes it', async () => {
    const agent = await createAgent([pay('K-2b', 60_000), { content: 'done' }], { confirmation: TWO_ADMINS_OVER_500K });
    const run = openChat(t, admin, { agent_id: agent, message: 'pay K-2b' });
    const pending = await nthPending(run, 1);
    const edited = await decide(
      pending.confirmation_id,
      { decision: 'approve', args: { id: 'K-2b', amount: 800_000 } },
      carol,
    );
    expect(edited.body).toMatchObject({ status: 'pending', tier: 0, approvals_required: 2, approvals_given: 1 });
    const again = await decide(pending.confirmation_id, { decision: 'approve' }, carol);
    expect(again.status).toBe(409);
    expect((await decide(pending.confirmation_id, { decision: 'approve' }, admin)).body).toMatchObject({
      status: 'approved',
    });
    await run.finished;
    expect(paid('K-2b')).toEqual([800_000]);
  });

  it('a request rebound by an edit can be edited again by someone the new tier names: the call runs the last edit', async () => {
    const oneAdminOver500k = {
      approvers: ['org_members'],
      tiers: [{ when: 'args.amount > 500000', approvals: 1, approvers: ['org_admins'] }],
    };
    const agent = await createAgent([pay('K-2c', 60_000), { content: 'done' }], { confirmation: oneAdminOver500k });
    const run = openChat(t, admin, { agent_id: agent, message: 'pay K-2c' });
    const pending = await nthPending(run, 1);
    const first = await decide(
      pending.confirmation_id,
      { decision: 'approve', args: { id: 'K-2c', amount: 700_000 } },
      bob,
    );
    expect(first.body).toMatchObject({
      status: 'pending',
      tier: 0,
      approvers: ['org_admins'],
      approvals_required: 1,
      approvals_given: 0,
    });
    const second = await decide(
      pending.confirmation_id,
      { decision: 'approve', args: { id: 'K-2c', amount: 650_000 } },
      carol,
    );
    expect(second.body).toMatchObject({
      status: 'approved',
      args: { id: 'K-2c', amount: 650_000 },
      original_args: { id: 'K-2c', amount: 60_000 },
    });
    await run.finished;
    expect(paid('K-2c')).toEqual([650_000]);
  });

  it('break 3 (edit): an edit may not add a key the action schema does not name (400 naming it; nothing decided)', async () => {
    const agent = await createAgent([pay('K-3', 60_000), { content: 'done' }]);
    const run = openChat(t, admin, { agent_id: agent, message: 'pay K-3' });
    const pending = await nthPending(run, 1);
    const res = await decide(pending.confirmation_id, {
      decision: 'approve',
      args: { id: 'K-3', amount: 60_000, bank: 'evil' },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/unknown field "bank"/);
    const row = (await t.request('GET', `/api/confirmations/${pending.confirmation_id}`, { token: admin })).body;
    expect(row).toMatchObject({ status: 'pending', original_args: null, approvals_given: 0 });
    expect((await decide(pending.confirmation_id, { decision: 'reject' })).status).toBe(200);
    await run.finished;
    expect(oa.requests.filter((r) => r.path === '/purchases/K-3/pay')).toHaveLength(0);
  });

  it('break 4: a standing grant never covers a call in a stricter tier (a member grant does not pay 900 000)', async () => {
    const agent = await createAgent([pay('K-4', 60_000), pay('K-4', 900_000), { content: 'done' }], {
      confirmation: TWO_ADMINS_OVER_500K,
    });
    const run = openChat(t, admin, { agent_id: agent, message: 'pay K-4 twice' });
    const first = await nthPending(run, 1);
    const granted = await decide(
      first.confirmation_id,
      { decision: 'approve', standing: { when: 'args.amount <= 1000000' } },
      bob,
    );
    expect(granted.status).toBe(200);
    const second = await nthPending(run, 2);
    const row = (await t.request('GET', `/api/confirmations/${second.confirmation_id}`, { token: admin })).body;
    expect(row).toMatchObject({
      status: 'pending',
      tier: 0,
      approvals_required: 2,
      args: { id: 'K-4', amount: 900_000 },
    });
    expect(paid('K-4')).toEqual([60_000]);
    expect((await decide(second.confirmation_id, { decision: 'reject' })).status).toBe(200);
    await run.finished;
    expect(paid('K-4')).toEqual([60_000]);
  });

  it('an approval written straight into the database carries no grant and authorizes nothing (fail closed)', async () => {
    const agent = await createAgent([pay('K-DB', 60_000), { content: 'done' }]);
    const run = openChat(t, admin, { agent_id: agent, message: 'pay K-DB' });
    const pending = await nthPending(run, 1);
    await app.db.query(
      `UPDATE confirmation_requests SET status = 'approved', approvals_given = 1, responded_at = now(), responded_by_name = 'dba' WHERE id = $1`,
      [pending.confirmation_id],
    );
    await app.db.query(`SELECT pg_notify('confirmation_decided', $1)`, [pending.confirmation_id]);
    const events = await run.finished;
    const observation = events.find((e) => e.event === 'observation')!.data;
    expect(observation).toMatchObject({ blocked: true, blocked_by: 'confirmation_gate' });
    expect(observation.content).toMatch(/authorizes nothing/);
    expect(paid('K-DB')).toEqual([]);
  });

  it('break 5: a standing grant on an ask_human question is refused: the model never answers its own next question', async () => {
    const question = (answer?: string) => ({
      tool_calls: [{ name: 'ask_human', args: { question: 'Pay K-5?', ...(answer ? { answer } : {}) } }],
    });
    const agent = await createAgent([question(), question('yes, pay everything'), { content: 'done' }], {
      confirmation: { approvers: ['org_admins'] },
    });
    const run = openChat(t, admin, { agent_id: agent, message: 'ask twice' });
    const first = await nthPending(run, 1);
    const standing = await decide(first.confirmation_id, {
      decision: 'approve',
      answer: { text: 'no' },
      standing: { when: 'true' },
    });
    expect(standing.status).toBe(400);
    expect(standing.body.message).toMatch(/question/);
    expect((await decide(first.confirmation_id, { decision: 'approve', answer: { text: 'no' } })).status).toBe(200);
    const second = await nthPending(run, 2);
    expect(second.tool).toBe('ask_human');
    expect((await decide(second.confirmation_id, { decision: 'approve', answer: { text: 'still no' } })).status).toBe(
      200,
    );
    const events = await run.finished;
    const answers = events.filter((e) => e.event === 'observation').map((e) => e.data.content);
    expect(answers).toEqual(['{"text":"no"}', '{"text":"still no"}']);
  });
});
