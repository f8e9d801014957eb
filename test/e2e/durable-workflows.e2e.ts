import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { kill9, startProcesses, type ProcessHarness } from './process-harness.js';
import { OA_ACTIONS } from './runtime-helpers.js';

/** Issue 6: a workflow whose node waits for approval survives a kill -9 of its server. */
describe('durable workflow runs (server processes, PostgreSQL)', () => {
  let oa: HttpFake;
  let h: ProcessHarness | undefined;

  beforeAll(async () => {
    oa = await startHttpFake((req) => ({ ok: true, path: req.path }));
  });
  afterAll(async () => {
    await h?.close();
    await oa?.close();
  });

  it('an agent node and a connector node waiting for approval: kill -9, restart, approve -> the workflow completes, each call once', async () => {
    h = await startProcesses();
    const { token, start, api } = h;
    let server = await start();
    expect(
      (await api(server, 'POST', '/api/connectors', { name: 'oa', base_url: oa.url, actions: OA_ACTIONS })).status,
    ).toBe(201);
    const agent = await api(server, 'POST', '/api/agents', {
      name: 'payer',
      model_config_json: {
        model: {
          provider: 'scripted',
          script: [
            { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-1', amount: 70000 } }] },
            { content: 'paid PO-1' },
          ],
        },
        tools: ['oa__purchase_pay'],
      },
    });
    expect(agent.status).toBe(201);
    const wf = await api(server, 'POST', '/api/workflows', {
      name: 'pay-two',
      definition: {
        nodes: [
          { id: 'start', type: 'start' },
          { id: 'agent_pay', type: 'agent', agent_id: agent.body.id, prompt: 'Pay PO-1' },
          { id: 'direct_pay', type: 'connector', tool: 'oa__purchase_pay', args: { id: 'PO-2', amount: 80000 } },
          { id: 'end', type: 'end' },
        ],
        edges: [
          { from: 'start', to: 'agent_pay' },
          { from: 'start', to: 'direct_pay' },
          { from: 'agent_pay', to: 'end' },
          { from: 'direct_pay', to: 'end' },
        ],
      },
    });
    expect(wf.status).toBe(201);
    const started = await api(server, 'POST', `/api/workflows/${wf.body.id}/runs`, { inputs: {} });
    expect(started.status).toBe(202);
    const runId = started.body.run_id;
    // Both branches wait for approval at once.
    await until(
      'two pending approvals',
      async () => {
        const pending = (await api(server, 'GET', '/api/confirmations?status=pending')).body;
        return pending.length === 2 ? pending : undefined;
      },
      30_000,
      100,
    );
    await until(
      'workflow waiting',
      async () =>
        (await api(server, 'GET', `/api/workflow-runs/${runId}`)).body.status === 'waiting' ? true : undefined,
      30_000,
      100,
    );

    await kill9(server);
    server = await start();

    const pending = (await api(server, 'GET', '/api/confirmations?status=pending')).body as Array<{ id: string }>;
    expect(pending).toHaveLength(2);
    for (const c of pending)
      expect((await api(server, 'POST', `/api/confirmations/${c.id}/decision`, { decision: 'approve' })).status).toBe(
        200,
      );
    const done = await until(
      'workflow completed',
      async () => {
        const r = (await api(server, 'GET', `/api/workflow-runs/${runId}`)).body;
        return ['completed', 'failed'].includes(r.status) ? r : undefined;
      },
      30_000,
      100,
    );
    expect(done).toMatchObject({
      status: 'completed',
      nodes: { agent_pay: { status: 'completed', output: 'paid PO-1' }, direct_pay: { status: 'completed' } },
    });
    expect(oa.requests.filter((r) => r.path === '/purchases/PO-1/pay')).toHaveLength(1);
    expect(oa.requests.filter((r) => r.path === '/purchases/PO-2/pay')).toHaveLength(1);
    const events = await fetch(`${server.url}/api/workflow-runs/${runId}/events`, {
      headers: { authorization: `Bearer ${token}` },
    }).then((r) => r.text());
    expect(events).toMatch(/event: workflow_resumed/);
    expect(events).toMatch(/event: done\ndata: [^\n]*"status":"completed"/);
  }, 90_000);
});
