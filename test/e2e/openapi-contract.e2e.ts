import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack.js';
import { OpenApiContract } from '../support/openapi-contract.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, OA_ACTIONS, openChat } from './runtime-helpers.js';

// Nothing listens on port 9: connectors and MCP servers are saved without being reachable.
const NOWHERE = 'http://127.0.0.1:9';

/**
 * What the console's generated types promise is what the server sends: every JSON response of the main routes is
 * checked against the OpenAPI document, with objects closed, so an undeclared field fails here.
 */
describe('responses match the OpenAPI document', () => {
  let t: TestApp;
  let slack: FakeSlack;
  let contract: OpenApiContract;
  let admin: string;
  const violations: string[] = [];

  /** Calls the app and records what in the response the document does not declare (or declares otherwise). */
  const call = async (method: string, path: string, body?: unknown, token = admin) => {
    const res = await t.request(method, path, { token, body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    violations.push(...contract.violations(method, path, res.status, res.headers.get('content-type'), res.body));
    return res.body;
  };

  beforeAll(async () => {
    slack = await startFakeSlack('xoxb-1');
    t = await startTestApp();
    contract = OpenApiContract.fromApp(t.app);
    admin = await t.token('alice', 'acme', ['admin']);
  });
  afterAll(async () => {
    await t?.close();
    await slack?.close();
  });

  it('configuration routes: created, listed, read and updated objects carry exactly the declared fields', async () => {
    const connector = await call('POST', '/api/connectors', {
      name: 'oa',
      base_url: NOWHERE,
      headers: { 'X-Api-Key': 'k' },
      actions: OA_ACTIONS,
    });
    await call('GET', '/api/connectors');
    await call('GET', `/api/connectors/${connector.id}`);

    const agentBody = {
      name: 'payer',
      instructions: 'x',
      model_config_json: { model: { provider: 'scripted', script: [{ content: 'ok' }] } },
    };
    const agent = await call('POST', '/api/agents', agentBody);
    await call('PUT', `/api/agents/${agent.id}`, {
      ...agentBody,
      model_config_json: { model: { provider: 'scripted', script: [{ content: 'changed' }] } },
    });
    await call('GET', '/api/agents');
    await call('GET', `/api/agents/${agent.id}`);
    await call('GET', `/api/agents/${agent.id}/versions`);
    await call('GET', `/api/agents/${agent.id}/versions/1`);
    await call('GET', `/api/agents/${agent.id}/hooks/effective`);

    const channelConfig = { bot_token: 'xoxb-1', signing_secret: 'sig', channel: 'C-OPS', base_url: slack.apiUrl };
    const channel = await call('POST', '/api/channels', { type: 'slack', name: 'ops', config: channelConfig });
    await call('GET', '/api/channels');
    await call('GET', `/api/channels/${channel.id}`);

    const mcp = await call('POST', '/api/mcp-servers', {
      name: 'shop',
      url: `${NOWHERE}/mcp`,
      headers: { Authorization: 'Bearer t' },
    });
    await call('GET', '/api/mcp-servers');
    await call('GET', `/api/mcp-servers/${mcp.id}`);

    await call('POST', '/api/llm-credentials', { name: 'key', api_key: 'sk-1', origin: 'https://api.openai.com' });
    await call('GET', '/api/llm-credentials');

    await call('PUT', '/api/org/hooks', { class_hooks: ['audit_log'] });
    await call('PUT', '/api/org/hooks', { class_hooks: [] });
    await call('GET', '/api/org/hooks/versions/diff?from=1&to=2');
    await call('GET', '/api/org/hooks');
    await call('GET', '/api/org/hooks/versions');
    await call('GET', '/api/org/hooks/versions/1');
    await call('GET', '/api/hooks');

    const definition = {
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'end', type: 'end' },
      ],
      edges: [{ from: 'start', to: 'end' }],
    };
    const workflow = await call('POST', '/api/workflows', { name: 'wf', definition });
    await call('GET', '/api/workflows');
    await call('GET', `/api/workflows/${workflow.id}`);

    await call('GET', '/api/me');
    await call('GET', '/api/org');
    await call('GET', '/api/users');
    await call('GET', '/api/notifications');
    expect(violations).toEqual([]);
  });

  it('runs, confirmations, evals, workflow runs and audit: what they return is what the document says', async () => {
    violations.length = 0;
    const pay = (amount: number) => ({ tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-1', amount } }] });
    const payer = (amount: number) => ({
      model: { provider: 'scripted', script: [pay(amount), { content: 'done' }] },
      tools: ['oa__*'],
    });
    const small = await call('POST', '/api/agents', {
      name: 'small-payer',
      instructions: 'x',
      model_config_json: payer(100),
    });
    const res = await chat(t, admin, { agent_id: small.id, message: 'pay PO-1' });
    await call('GET', `/api/runs/${res.events[0].data.run_id as string}`);

    const big = await call('POST', '/api/agents', {
      name: 'big-payer',
      instructions: 'x',
      model_config_json: payer(90000),
    });
    const live = openChat(t, admin, { agent_id: big.id, message: 'pay PO-1' });
    const { confirmation_id: id } = (await live.next('confirmation_pending')).data as { confirmation_id: string };
    await call('GET', '/api/confirmations');
    await call('GET', `/api/confirmations/${id}`);
    await call('POST', `/api/confirmations/${id}/decision`, { decision: 'reject', reason: 'no' });
    const events = await live.finished;
    await call('GET', '/api/confirmations?status=rejected');
    await call('GET', `/api/runs/${events[0].data.run_id as string}`);
    await call('GET', '/api/conversations');

    const answer = await call('POST', '/api/agents', {
      name: 'answerer',
      instructions: 'x',
      model_config_json: { model: { provider: 'scripted', script: [{ content: 'hi' }] } },
    });
    const evalRun = await call('POST', '/api/evals', { agent_id: answer.id, cases: [{ input: 'hello' }] });
    await call('GET', `/api/evals/${evalRun.id}`);

    const definition = {
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'end', type: 'end' },
      ],
      edges: [{ from: 'start', to: 'end' }],
    };
    const workflow = await call('POST', '/api/workflows', { name: 'flow', definition });
    const started = await call('POST', `/api/workflows/${workflow.id}/runs`, { inputs: {} });
    await call('GET', `/api/workflow-runs/${started.run_id}`);

    await call('GET', '/api/audit/events');
    await call('GET', '/api/audit/config-events');
    await call('GET', '/api/audit/connector-calls');
    await call('GET', '/api/audit/verify');
    await call('GET', '/api/audit/identities');
    expect(violations).toEqual([]);
  }, 30_000);
});
