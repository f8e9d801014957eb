import type { ServerResponse } from 'node:http';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat } from './runtime-helpers.js';

/**
 * SSRF tried by an org admin: connector, model and channel base URLs pointing at metadata, loopback and private
 * addresses. With EGRESS_ALLOW empty (production's default) nothing internal is reached; allow-listed ranges work.
 */
describe('egress policy', () => {
  let t: TestApp;
  let internal: HttpFake;
  let llm: FakeOpenAI;
  let feishu: FakeFeishu;
  let admin: string;

  beforeAll(async () => {
    internal = await startHttpFake(() => ({ secret: 'internal-service-data' }));
    llm = await startFakeOpenAI(() => ({ content: 'from the internal model' }));
    feishu = await startFakeFeishu({ appId: 'cli_x', appSecret: 'feishu-secret' });
    t = await startTestApp({ EGRESS_ALLOW: '', WARDEN_LLM_KEY_FAKE: 'sk-fake' });
    admin = await t.token('root', 'acme', ['admin']);
  });
  afterAll(async () => { await t.close(); await internal.close(); await llm.close(); await feishu.close(); });

  async function callConnector(baseUrl: string, name: string) {
    const c = await t.request('POST', '/api/connectors', { token: admin, body: { name, base_url: baseUrl, actions: [{ name: 'get', method: 'GET', path: '/data' }] } });
    expect(c.status).toBe(201);
    const agent = await t.request('POST', '/api/agents', { token: admin, body: {
      name: `agent-${name}`, model_config_json: { model: { provider: 'scripted', script: [{ tool_calls: [{ name: `${name}__get`, args: {} }] }, { content: 'done' }] }, tools: [`${name}__get`] },
    } });
    const res = await chat(t, admin, { agent_id: agent.body.id, message: 'fetch' });
    return String(res.events.find((e) => e.event === 'observation')?.data.content);
  }

  it.each([
    ['the metadata address', 'http://169.254.169.254/latest', 'meta'],
    ['a private address', 'http://10.0.0.1:8080', 'priv'],
  ])('a connector pointing at %s is refused before connecting', async (_, url, name) => {
    const observation = await callConnector(url, name);
    expect(observation).toMatch(/egress refused: .* a private, loopback or link-local address \(allow it with EGRESS_ALLOW\)/);
  });

  it('a connector on loopback, by address or by a name that resolves there, reaches nothing', async () => {
    const port = new URL(internal.url).port;
    expect(await callConnector(`http://127.0.0.1:${port}`, 'loop')).toMatch(/egress refused: 127\.0\.0\.1/);
    expect(await callConnector(`http://localhost:${port}`, 'named')).toMatch(/egress refused: localhost resolves to/);
    expect(internal.requests).toHaveLength(0);
  });

  it('a model server on loopback is refused: the run fails naming the policy and the model server sees nothing', async () => {
    const agent = await t.request('POST', '/api/agents', { token: admin, body: {
      name: 'internal-llm', model_config_json: { model: { provider: 'openai', base_url: llm.baseUrl, model: 'm', api_key_env: 'WARDEN_LLM_KEY_FAKE' } },
    } });
    const res = await chat(t, admin, { agent_id: agent.body.id, message: 'hi' });
    expect(res.text).toMatch(/egress refused/);
    expect(llm.requests).toHaveLength(0);
  });

  it('a channel /test to a loopback base_url fails naming the policy; the app secret goes nowhere', async () => {
    const ch = await t.request('POST', '/api/channels', { token: admin, body: { type: 'feishu', name: 'f', config: {
      app_id: 'cli_x', app_secret: 'feishu-secret', chat_id: 'oc_1', verification_token: 'v', base_url: feishu.url,
    } } });
    expect(ch.status).toBe(201);
    const res = await t.request('POST', `/api/channels/${ch.body.id}/test`, { token: admin });
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toMatch(/egress refused/);
    expect(feishu.requests).toHaveLength(0);
  });
});

describe('egress policy with an allow-list', () => {
  let t: TestApp;
  let redirector: HttpFake;
  let admin: string;

  beforeAll(async () => {
    redirector = await startHttpFake((req, res: ServerResponse) => {
      // Redirects to another loopback address, which the allow-list (127.0.0.1/32 only) does not cover.
      res.writeHead(302, { location: `http://127.0.0.2:${new URL(redirector.url).port}/data` });
      res.end();
    });
    t = await startTestApp({ EGRESS_ALLOW: '127.0.0.1/32' });
    admin = await t.token('root', 'acme', ['admin']);
  });
  afterAll(async () => { await t.close(); await redirector.close(); });

  it('a redirect from an allowed address to a refused one is refused at connect time', async () => {
    const c = await t.request('POST', '/api/connectors', { token: admin, body: { name: 'redir', base_url: redirector.url, actions: [{ name: 'get', method: 'GET', path: '/start' }] } });
    expect(c.status).toBe(201);
    const agent = await t.request('POST', '/api/agents', { token: admin, body: {
      name: 'redir-agent', model_config_json: { model: { provider: 'scripted', script: [{ tool_calls: [{ name: 'redir__get', args: {} }] }, { content: 'done' }] }, tools: ['redir__get'] },
    } });
    const res = await chat(t, admin, { agent_id: agent.body.id, message: 'go' });
    expect(String(res.events.find((e) => e.event === 'observation')?.data.content)).toMatch(/egress refused: 127\.0\.0\.2/);
    expect(redirector.requests.map((r) => r.path)).toEqual(['/start']);
  });
});
