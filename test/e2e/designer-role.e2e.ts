import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CONFIG_ROUTE_CASES, type RouteCaseContext } from './config-route-cases.js';
import { OA_ACTIONS } from './runtime-helpers.js';

/**
 * The `designer` role (#31 gap 2): builds and runs workflows, and changes nothing else — agents, hooks, connectors,
 * channels, MCP servers, credentials and org settings answer 403. Every configuration route of CONFIG_ROUTE_CASES is
 * tried with a designer's token, so a new route is covered the day it gets its case.
 */
describe('designer role', () => {
  let t: TestApp;
  let slack: FakeSlack;
  let c: RouteCaseContext;
  let designer: string;
  let member: string;

  beforeAll(async () => {
    slack = await startFakeSlack('xoxb-designer-test');
    t = await startTestApp();
    const admin = await t.token('alice', 'acme', ['admin']);
    const bob = await t.token('bob', 'acme', []);
    designer = await t.token('dana', 'acme', ['designer']);
    member = await t.token('mo', 'acme', []);
    const me = (await t.request('GET', '/api/me', { token: admin })).body;
    const bobMe = (await t.request('GET', '/api/me', { token: bob })).body;
    c = { t, admin, adminUserId: me.user_id, bob, bobUserId: bobMe.user_id, orgId: me.org_id, slack };
    const conn = await t.request('POST', '/api/connectors', {
      token: admin,
      body: { name: 'oa', base_url: 'http://127.0.0.1:9', actions: OA_ACTIONS },
    });
    expect(conn.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await slack?.close();
  });

  const forbidden = Object.keys(CONFIG_ROUTE_CASES).filter((r) => CONFIG_ROUTE_CASES[r].designer === undefined);
  const allowed = Object.keys(CONFIG_ROUTE_CASES).filter((r) => CONFIG_ROUTE_CASES[r].designer === 'allowed');

  it('the cases name agents, hooks, org settings as forbidden and the workflow routes as allowed', () => {
    expect(forbidden).toEqual(
      expect.arrayContaining([
        'POST /api/agents',
        'PUT /api/agents/:id',
        'PUT /api/org/hooks',
        'PUT /api/org/read-only',
      ]),
    );
    expect(allowed.sort()).toEqual(['DELETE /api/workflows/:id', 'POST /api/workflows', 'PUT /api/workflows/:id']);
  });

  it.each(forbidden)('%s: a designer gets 403', async (route) => {
    const kase = CONFIG_ROUTE_CASES[route];
    const made = (await kase.setup?.(c)) ?? {};
    const res = await kase.act({ ...c, admin: designer }, made);
    expect({ route, status: res.status }).toEqual({ route, status: 403 });
  });

  it.each(allowed)('%s: a designer may (2xx)', async (route) => {
    const kase = CONFIG_ROUTE_CASES[route];
    const made = (await kase.setup?.(c)) ?? {};
    const res = await kase.act({ ...c, admin: designer }, made);
    expect({ route, status: res.status < 300 }).toEqual({ route, status: true });
  });

  it('a designer checks, saves and runs a workflow, sees its runs and the callable tools; a member may not build', async () => {
    const definition = {
      nodes: [
        { id: 'start', type: 'start', inputs: ['po'] },
        { id: 'look', type: 'connector', tool: 'oa__get_purchase', args: { id: '{{inputs.po}}' } },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { from: 'start', to: 'look' },
        { from: 'look', to: 'end' },
      ],
    };
    const tools = await t.request('GET', '/api/workflow-tools', { token: designer });
    expect(tools.status).toBe(200);
    expect(tools.body.map((x: { name: string }) => x.name)).toContain('oa__get_purchase');
    expect(JSON.stringify(tools.body)).not.toContain('ask_human');
    expect((await t.request('GET', '/api/workflow-tools', { token: member })).status).toBe(403);

    const bad = { ...definition, nodes: [...definition.nodes, { id: 'ask', type: 'human' }] };
    const checked = await t.request('POST', '/api/workflows/validate', { token: designer, body: { definition: bad } });
    expect(checked.status).toBe(200);
    expect(checked.body.problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/\(ask\): human node needs a question/)]),
    );
    const ok = await t.request('POST', '/api/workflows/validate', { token: designer, body: { definition } });
    expect(ok.body).toEqual({ problems: [] });
    expect((await t.request('POST', '/api/workflows/validate', { token: member, body: { definition } })).status).toBe(
      403,
    );

    expect(
      (await t.request('POST', '/api/workflows', { token: member, body: { name: 'no', definition } })).status,
    ).toBe(403);
    const wf = await t.request('POST', '/api/workflows', { token: designer, body: { name: 'lookup', definition } });
    expect(wf.status).toBe(201);
    const started = await t.request('POST', `/api/workflows/${wf.body.id}/runs`, {
      token: designer,
      body: { inputs: { po: 'PO-1' } },
    });
    expect(started.status).toBe(202);
    // Nothing listens on the connector's port: the run ends (failed), and the designer reads it and its list.
    await until('the run ended', async () => {
      const run = await t.request('GET', `/api/workflow-runs/${started.body.run_id}`, { token: designer });
      return ['completed', 'failed'].includes(run.body.status) ? run.body : undefined;
    });
    const runs = await t.request('GET', `/api/workflows/${wf.body.id}/runs`, { token: designer });
    expect(runs.status).toBe(200);
    expect(runs.body).toEqual([expect.objectContaining({ id: started.body.run_id, user_id: expect.any(String) })]);
    // Another member sees none of the designer's runs; an admin sees them all.
    expect((await t.request('GET', `/api/workflows/${wf.body.id}/runs`, { token: member })).body).toEqual([]);
    expect((await t.request('GET', `/api/workflows/${wf.body.id}/runs`, { token: c.admin })).body).toHaveLength(1);
  });
});
