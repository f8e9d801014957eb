import path from 'node:path';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, openChat } from './runtime-helpers.js';

const HOOKS_DIR = path.resolve('test/fixtures/hooks');

/** A shop whose `pay` action needs no approval by itself: only a hook's ask (or a tier) brings the gate in. */
const SHOP_ACTIONS = [
  {
    name: 'pay',
    method: 'POST',
    path: '/pay',
    description: 'Pay an invoice',
    parameters: {
      type: 'object',
      properties: { invoice: { type: 'string' }, amount: { type: 'number' } },
      required: ['invoice', 'amount'],
      additionalProperties: false,
    },
  },
];

/** One YAML hook on shop__pay; `big`: only when the amount is over 50 000 (a CEL condition). */
const hook = (name: string, module: string, priority: number, big = false) =>
  [
    `  - name: ${name}`,
    '    event: PreToolUse',
    '    matcher: "shop__pay"',
    ...(big ? ['    if: "args.amount > 50000"'] : []),
    `    module: ./${module}.mjs`,
    `    priority: ${priority}`,
  ].join('\n');
const yaml = (...hooks: string[]) => ({ yaml: ['hooks:', ...hooks].join('\n') });

/**
 * #28 "transform, then decide": every deciding outcome (block, ask, CEL conditions, tier) is taken on the final args,
 * whatever the priorities and bands of the hooks that transform and decide. A hook whose view of the args a later
 * hook changed decides again on the final args (docs/authorization.md "Phases").
 */
describe('authorization: deciders decide on the final args (PostgreSQL)', () => {
  let t: TestApp;
  let shop: HttpFake;
  let admin: string;

  const agentWith = async (
    invoice: string,
    amount: number,
    hooks?: Record<string, unknown>,
    confirmation?: unknown,
  ) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: `final-${invoice}`,
        model_config_json: {
          model: {
            provider: 'scripted',
            script: [{ tool_calls: [{ name: 'shop__pay', args: { invoice, amount } }] }, { content: 'done' }],
          },
          tools: ['shop__*'],
          ...(hooks ? { hooks } : {}),
          ...(confirmation ? { confirmation } : {}),
        },
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const paid = (invoice: string) => shop.requests.filter((r) => r.body?.invoice === invoice).map((r) => r.body.amount);
  const observationOf = (events: Array<{ event: string; data: any }>) =>
    events.find((e) => e.event === 'observation')!.data;
  const orgHooks = async (body: Record<string, unknown>) =>
    expect((await t.request('PUT', '/api/org/hooks', { token: admin, body })).status).toBe(200);

  beforeAll(async () => {
    shop = await startHttpFake(() => ({ paid: true }));
    t = await startTestApp({ HOOKS_DIR });
    admin = await t.token('alice', 'acme', ['admin'], { name: 'Alice' });
    const created = await t.request('POST', '/api/connectors', {
      token: admin,
      body: { name: 'shop', base_url: shop.url, actions: SHOP_ACTIONS },
    });
    expect(created.status).toBe(201);
  });
  afterEach(async () => orgHooks({}));
  afterAll(async () => {
    await t?.close();
    await shop?.close();
  });

  it('(a) same band: an agent deny at priority 10 decides on what the agent rewriter at 20 makes of 40 000: blocked', async () => {
    const agent = await agentWith(
      'F-A',
      40_000,
      yaml(hook('deny-big', 'block-big', 10, true), hook('double', 'double-amount', 20)),
    );
    const res = await chat(t, admin, { agent_id: agent, message: 'pay' });
    const observation = observationOf(res.events);
    expect(observation).toMatchObject({ blocked: true, blocked_by: 'deny-big' });
    expect(observation.content).toBe('Tool call blocked by deny-big: amounts over 50000 need a purchase order');
    expect(paid('F-A')).toEqual([]);
  });

  it('(a) the same chain sends a doubled amount the deny allows: 20 000 → 40 000', async () => {
    const agent = await agentWith(
      'F-A2',
      20_000,
      yaml(hook('deny-big', 'block-big', 10, true), hook('double', 'double-amount', 20)),
    );
    await chat(t, admin, { agent_id: agent, message: 'pay' });
    expect(paid('F-A2')).toEqual([40_000]);
  });

  it('(b) an agent ask placed before an org rewriter asks on the final args, under the tier of the final args', async () => {
    await orgHooks(yaml(hook('org-double', 'double-amount', 5)));
    const tiers = {
      approvers: ['org_members'],
      tiers: [{ when: 'args.amount > 60000', approvals: 2, approvers: ['org_admins'] }],
    };
    const agent = await agentWith('F-B', 40_000, yaml(hook('ask-big', 'ask-big', 10, true)), tiers);
    const run = openChat(t, admin, { agent_id: agent, message: 'pay' });
    const pending = await until(
      'the ask',
      () => run.events.find((e) => e.event === 'confirmation_pending')?.data,
      15_000,
    );
    const row = (await t.request('GET', `/api/confirmations/${pending.confirmation_id}`, { token: admin })).body;
    expect(row).toMatchObject({
      status: 'pending',
      args: { invoice: 'F-B', amount: 80_000 },
      tier: 0,
      approvals_required: 2,
      approvers: ['org_admins'],
      ask_reason: 'ask-big: amounts over 50000 need a second look',
    });
    expect(paid('F-B')).toEqual([]);
    expect(
      (
        await t.request('POST', `/api/confirmations/${pending.confirmation_id}/decision`, {
          token: admin,
          body: { decision: 'reject' },
        })
      ).status,
    ).toBe(200);
    await run.finished;
    expect(paid('F-B')).toEqual([]);
  });

  it('(c) an org policy at priority 50 decides on what the org rewriter at 60 makes of 40 000: blocked', async () => {
    await orgHooks(yaml(hook('org-deny-big', 'block-big', 50, true), hook('org-double', 'double-amount', 60)));
    const agent = await agentWith('F-C', 40_000);
    const res = await chat(t, admin, { agent_id: agent, message: 'pay' });
    expect(observationOf(res.events)).toMatchObject({ blocked: true, blocked_by: 'org-deny-big' });
    expect(paid('F-C')).toEqual([]);
  });

  it('a hook that would change the final args on the decide pass fails closed: a cap at 10 before a doubler at 20', async () => {
    const agent = await agentWith('F-D', 40_000, yaml(hook('cap', 'cap-50k', 10), hook('double', 'double-amount', 20)));
    const res = await chat(t, admin, { agent_id: agent, message: 'pay' });
    const observation = observationOf(res.events);
    expect(observation).toMatchObject({ blocked: true, blocked_by: 'cap' });
    expect(observation.content).toMatch(/would change the final args/);
    expect(paid('F-D')).toEqual([]);
  });

  it('dry run shows the decide pass: the deny decides again on the final args and blocks', async () => {
    const agent = await agentWith(
      'F-E',
      40_000,
      yaml(hook('deny-big', 'block-big', 10, true), hook('double', 'double-amount', 20)),
    );
    const res = await t.request('POST', '/api/hooks/dry-run', {
      token: admin,
      body: { agent_id: agent, tool: 'shop__pay', args: { invoice: 'F-E', amount: 40_000 } },
    });
    expect(res.status).toBe(200);
    const verdicts = (res.body.verdicts ?? res.body) as Array<{ hook: string; outcome: string; detail: string | null }>;
    const ours = verdicts.filter((v) => v.hook === 'double' || v.hook === 'deny-big');
    expect(ours.map((v) => [v.hook, v.outcome, v.detail])).toEqual([
      ['double', 'rewrite', 'amount doubled'],
      ['deny-big', 'block', 'amounts over 50000 need a purchase order'],
    ]);
    expect(paid('F-E')).toEqual([]);
  });
});
