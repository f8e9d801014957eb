import type { ServerResponse } from 'node:http';
import pg from 'pg';
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
    t = await startTestApp({
      EGRESS_ALLOW: '',
      WARDEN_LLM_KEY_FAKE: 'sk-fake',
      LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}`,
    });
    admin = await t.token('root', 'acme', ['admin']);
  });
  afterAll(async () => {
    await t.close();
    await internal.close();
    await llm.close();
    await feishu.close();
  });

  /** Rows saved before the save-time check, or whose name resolved elsewhere then (DNS rebinding): the dial decides. */
  async function sql(statement: string, params: unknown[]) {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      await client.query(statement, params);
    } finally {
      await client.end();
    }
  }

  async function callConnector(baseUrl: string, name: string) {
    const c = await t.request('POST', '/api/connectors', {
      token: admin,
      body: { name, base_url: 'http://public.example', actions: [{ name: 'get', method: 'GET', path: '/data' }] },
    });
    expect(c.status).toBe(201);
    await sql('UPDATE connectors SET base_url = $2 WHERE id = $1', [c.body.id, baseUrl]);
    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: `agent-${name}`,
        model_config_json: {
          model: {
            provider: 'scripted',
            script: [{ tool_calls: [{ name: `${name}__get`, args: {} }] }, { content: 'done' }],
          },
          tools: [`${name}__get`],
        },
      },
    });
    const res = await chat(t, admin, { agent_id: agent.body.id, message: 'fetch' });
    return String(res.events.find((e) => e.event === 'observation')?.data.content);
  }

  it.each([
    ['the metadata address', 'http://169.254.169.254/latest', 'meta'],
    ['a private address', 'http://10.0.0.1:8080', 'priv'],
  ])('a connector pointing at %s is refused before connecting', async (_, url, name) => {
    const observation = await callConnector(url, name);
    expect(observation).toMatch(
      /egress refused: .* a private, loopback or link-local address \(allow it with EGRESS_ALLOW\)/,
    );
  });

  it('a connector on loopback, by address or by a name that resolves there, reaches nothing', async () => {
    const port = new URL(internal.url).port;
    expect(await callConnector(`http://127.0.0.1:${port}`, 'loop')).toMatch(/egress refused: 127\.0\.0\.1/);
    expect(await callConnector(`http://localhost:${port}`, 'named')).toMatch(/egress refused: localhost resolves to/);
    expect(internal.requests).toHaveLength(0);
  });

  it('a model server on loopback is refused: the run fails naming the policy and the model server sees nothing', async () => {
    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'internal-llm',
        model_config_json: {
          model: { provider: 'openai', base_url: 'http://public.example/v1', model: 'm' },
        },
      },
    });
    expect(agent.status).toBe(201);
    await sql(
      `UPDATE agents SET model_config_json = jsonb_set(model_config_json, '{model,base_url}', to_jsonb($2::text)) WHERE id = $1`,
      [agent.body.id, llm.baseUrl],
    );
    const res = await chat(t, admin, { agent_id: agent.body.id, message: 'hi' });
    expect(res.text).toMatch(/egress refused/);
    expect(llm.requests).toHaveLength(0);
  });

  it('a channel /test to a loopback base_url fails naming the policy; the app secret goes nowhere', async () => {
    const ch = await t.request('POST', '/api/channels', {
      token: admin,
      body: {
        type: 'feishu',
        name: 'f',
        config: {
          app_id: 'cli_x',
          app_secret: 'feishu-secret',
          chat_id: 'oc_1',
          verification_token: 'v',
          base_url: 'http://public.example',
        },
      },
    });
    expect(ch.status).toBe(201);
    await sql(`UPDATE channels SET config = jsonb_set(config, '{base_url}', to_jsonb($2::text)) WHERE id = $1`, [
      ch.body.id,
      feishu.url,
    ]);
    const res = await t.request('POST', `/api/channels/${ch.body.id}/test`, { token: admin });
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toMatch(/egress refused/);
    expect(feishu.requests).toHaveLength(0);
  });

  describe('at save time', () => {
    const connector = (base_url: string, name = 'saved') => ({
      name,
      base_url,
      actions: [{ name: 'get', method: 'GET', path: '/data' }],
    });

    it.each([
      ['the metadata address', 'http://169.254.169.254/latest'],
      ['a private address', 'http://10.0.0.1:8080'],
      ['a loopback literal', 'http://127.0.0.1:9'],
      ['an IPv6 loopback literal', 'http://[::1]:9'],
      ['a name resolving only to loopback', 'http://localhost:9'],
    ])('a connector base_url at %s is a 400 naming the field; nothing is saved', async (_, url) => {
      const res = await t.request('POST', '/api/connectors', { token: admin, body: connector(url) });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/base_url .*a private, loopback or link-local address.*EGRESS_ALLOW/);
      expect(
        (await t.request('GET', '/api/connectors', { token: admin })).body.map((c: { name: string }) => c.name),
      ).not.toContain('saved');
    });

    it('a connector moved to an internal address by PUT is a 400; the stored base_url stays', async () => {
      const created = await t.request('POST', '/api/connectors', {
        token: admin,
        body: connector('http://public.example', 'moved'),
      });
      expect(created.status).toBe(201);
      const put = await t.request('PUT', `/api/connectors/${created.body.id}`, {
        token: admin,
        body: connector('http://169.254.169.254', 'moved'),
      });
      expect(put.status).toBe(400);
      expect(put.body.message).toMatch(/base_url/);
      expect((await t.request('GET', `/api/connectors/${created.body.id}`, { token: admin })).body.base_url).toBe(
        'http://public.example',
      );
    });

    it('a model base_url on loopback is a 400 naming model_config_json.model.base_url', async () => {
      const res = await t.request('POST', '/api/agents', {
        token: admin,
        body: {
          name: 'saved-llm',
          model_config_json: {
            model: { provider: 'openai', base_url: llm.baseUrl, model: 'm', api_key_env: 'WARDEN_LLM_KEY_FAKE' },
          },
        },
      });
      expect(res.status).toBe(400);
      expect(res.body.problems).toEqual([
        expect.stringMatching(
          /^model_config_json\.model\.base_url .*127\.0\.0\.1.* a private, loopback or link-local address/,
        ),
      ]);
    });

    it('a channel base_url on loopback is a 400 naming config.base_url, on create and on update', async () => {
      const body = (base_url: string) => ({
        type: 'feishu',
        name: 'saved-ch',
        config: { app_id: 'cli_x', app_secret: 's', chat_id: 'oc_1', verification_token: 'v', base_url },
      });
      const res = await t.request('POST', '/api/channels', { token: admin, body: body(feishu.url) });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/config\.base_url .*a private, loopback or link-local address/);
      const ok = await t.request('POST', '/api/channels', { token: admin, body: body('http://public.example') });
      expect(ok.status).toBe(201);
      const put = await t.request('PUT', `/api/channels/${ok.body.id}`, {
        token: admin,
        body: { config: { base_url: 'http://10.1.2.3', app_secret: 's2', verification_token: 'v2' } },
      });
      expect(put.status).toBe(400);
      expect(put.body.message).toMatch(/config\.base_url/);
    });
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
  afterAll(async () => {
    await t.close();
    await redirector.close();
  });

  it('an allow-listed address saves; its neighbour outside the list does not', async () => {
    const body = (base_url: string, name: string) => ({
      name,
      base_url,
      actions: [{ name: 'get', method: 'GET', path: '/data' }],
    });
    expect(
      (await t.request('POST', '/api/connectors', { token: admin, body: body(redirector.url, 'allowed') })).status,
    ).toBe(201);
    const refused = await t.request('POST', '/api/connectors', {
      token: admin,
      body: body('http://127.0.0.2:9', 'neighbour'),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/base_url .*127\.0\.0\.2/);
  });

  it('a redirect from an allowed address to a refused one is refused at connect time', async () => {
    const c = await t.request('POST', '/api/connectors', {
      token: admin,
      body: { name: 'redir', base_url: redirector.url, actions: [{ name: 'get', method: 'GET', path: '/start' }] },
    });
    expect(c.status).toBe(201);
    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'redir-agent',
        model_config_json: {
          model: {
            provider: 'scripted',
            script: [{ tool_calls: [{ name: 'redir__get', args: {} }] }, { content: 'done' }],
          },
          tools: ['redir__get'],
        },
      },
    });
    const res = await chat(t, admin, { agent_id: agent.body.id, message: 'go' });
    expect(String(res.events.find((e) => e.event === 'observation')?.data.content)).toMatch(
      /egress refused: 127\.0\.0\.2/,
    );
    expect(redirector.requests.map((r) => r.path)).toEqual(['/start']);
  });
});
