import { startFakeOpa, type FakeOpa } from '../fakes/fake-opa.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, OA_ACTIONS } from './runtime-helpers.js';

/** The org's policy on purchase reads: SECRET is never read, ASK needs a human. */
function purchasesPolicy(input: any) {
  if (input.tool_input.id === 'SECRET') return { allow: false, reason: 'purchase SECRET is off limits' };
  if (input.tool_input.id === 'ASK') return { decision: 'ask', reason: 'reading ASK needs a human' };
  return { allow: true };
}

/**
 * Break 11 of #28: an eval skipped the org-wide hooks, so an admin's eval read `GET /purchases/SECRET`, which the
 * org policy blocks in chat. Evals bypass the agent's own hooks and the gate (no human waits), never the org's.
 */
describe("evals run the org's hooks", () => {
  let t: TestApp;
  let oa: HttpFake;
  let opa: FakeOpa;
  let admin: string;

  const reader = async (name: string, ids: string[]) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name,
        instructions: 'x',
        model_config_json: {
          model: {
            provider: 'scripted',
            script: [
              { tool_calls: ids.map((id) => ({ name: 'oa__get_purchase', args: { id } })) },
              { content: 'done' },
            ],
          },
          tools: ['oa__*'],
        },
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const readsOf = (id: string) => oa.requests.filter((r) => r.path === `/purchases/${id}`);

  beforeAll(async () => {
    [oa, opa] = await Promise.all([
      startHttpFake(() => ({ status: 'open' })),
      startFakeOpa({ 'warden/purchases/decision': purchasesPolicy }),
    ]);
    t = await startTestApp({ HOOK_HTTP_ALLOW: `127.0.0.1:${opa.port}` });
    admin = await t.token('alice', 'acme', ['admin']);
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: admin,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
    const yaml = [
      'hooks:',
      '  - name: purchases-policy',
      '    event: PreToolUse',
      '    matcher: "oa__get_purchase"',
      '    type: http',
      `    url: ${opa.url}/v1/data/warden/purchases/decision`,
      '    format: opa',
    ].join('\n');
    expect((await t.request('PUT', '/api/org/hooks', { token: admin, body: { yaml } })).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await oa?.close();
    await opa?.close();
  });

  it('in chat the org policy blocks the SECRET read (the baseline)', async () => {
    const res = await chat(t, admin, { agent_id: await reader('chat-reader', ['SECRET']), message: 'read' });
    expect(res.events.find((e) => e.event === 'observation')!.data).toMatchObject({
      blocked: true,
      blocked_by: 'purchases-policy',
    });
    expect(readsOf('SECRET')).toHaveLength(0);
  });

  it('in an eval the org policy blocks SECRET, an ask is simulated (nobody waits, nothing sent), an allowed read runs', async () => {
    const agent = await reader('eval-reader', ['SECRET', 'ASK', 'OPEN']);
    const created = await t.request('POST', '/api/evals', {
      token: admin,
      body: { agent_id: agent, cases: [{ input: 'read' }] },
    });
    expect(created.status).toBe(202);
    const result = await until('eval finished', async () => {
      const r = await t.request('GET', `/api/evals/${created.body.id}`, { token: admin });
      return r.body.status === 'running' ? undefined : r.body;
    });
    expect(result.status).toBe('completed');
    expect(result.results[0].tool_calls).toEqual([
      { tool: 'oa__get_purchase', args: { id: 'SECRET' }, simulated: false, status: 'blocked' },
      { tool: 'oa__get_purchase', args: { id: 'ASK' }, simulated: true, status: 'done' },
      { tool: 'oa__get_purchase', args: { id: 'OPEN' }, simulated: false, status: 'done' },
    ]);
    expect(readsOf('SECRET')).toHaveLength(0);
    expect(readsOf('ASK')).toHaveLength(0);
    expect(readsOf('OPEN')).toHaveLength(1);
  });
});
