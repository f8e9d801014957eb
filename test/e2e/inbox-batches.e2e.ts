import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { decide, person, type Person } from './approver-support.js';
import { OA_ACTIONS, openChat } from './runtime-helpers.js';

/**
 * Issue #32 break 5: the gated calls of one model turn form one group whatever the channel, the built-in inbox
 * included (batching used to exist only on channels with batch cards): they share a `batch_key` and carry their
 * place in the turn (`batch_position`), so the inbox shows them together, in turn order, with "Approve all".
 */
describe('one model turn -> one group in the inbox (PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let ada: Person;

  beforeAll(async () => {
    oa = await startHttpFake(() => ({ paid: true }));
    t = await startTestApp();
    ada = await person(t, 'ada', 'acme-inbox-batch', ['admin']);
    const connector = { name: 'oa', base_url: oa.url, actions: OA_ACTIONS };
    expect((await t.request('POST', '/api/connectors', { token: ada.token, body: connector })).status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await oa?.close();
  });

  it('three gated calls of one turn on the inbox share a batch key, in turn order; approving each completes the run', async () => {
    const pays = [1, 2, 3].map((n) => ({ name: 'oa__purchase_pay', args: { id: `I-${n}`, amount: 60_000 + n } }));
    const agent = await t.request('POST', '/api/agents', {
      token: ada.token,
      body: {
        name: 'inbox-batch',
        model_config_json: {
          tools: ['oa__*'],
          model: { provider: 'scripted', script: [{ tool_calls: pays }, { content: 'done' }] },
          confirmation: { approvers: ['org_admins'] },
        },
      },
    });
    expect(agent.status).toBe(201);
    const run = openChat(t, ada.token, { agent_id: agent.body.id, message: 'pay I-1..3' });
    const rows = await until('three pending requests', async () => {
      const res = await t.request('GET', '/api/confirmations?status=pending', { token: ada.token });
      return res.body.length === 3 ? (res.body as Array<Record<string, any>>) : undefined;
    });
    expect(rows.every((r) => r.channel_type === 'inbox' || r.channel_id === null || r.channel_id === 'inbox')).toBe(
      true,
    );
    expect(new Set(rows.map((r) => r.batch_key)).size).toBe(1);
    expect(rows[0].batch_key).toEqual(expect.any(String));
    const inTurnOrder = [...rows].sort((x, y) => x.batch_position - y.batch_position);
    expect(inTurnOrder.map((r) => [r.args.id, r.batch_position])).toEqual([
      ['I-1', 0],
      ['I-2', 1],
      ['I-3', 2],
    ]);
    for (const r of inTurnOrder) expect((await decide(t, ada, r.id)).status).toBe(200);
    const events = await run.finished;
    expect(events.find((e) => e.event === 'done')).toBeDefined();
    expect(oa.requests.filter((r) => r.path.startsWith('/purchases/I-')).length).toBe(3);
  });
});
