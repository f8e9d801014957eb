import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startMcpShopServer, type McpShopServer } from '../fakes/mcp-shop-server.js';
import { bootExpectingFailure } from '../support/server-process.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat } from './runtime-helpers.js';

const MCP_TOKEN = 'mcp-token-of-the-shop-0123';
const CONNECTOR_SECRET = 'Bearer connector-secret-0123';
const OPERATOR_KEY = 'sk-operator-key-0123456789';
const ORG_KEY = 'sk-org-credential-0123456789';

/**
 * Secrets stay with the origin (scheme, host, port) they were stored for (#29): an admin who re-points a connector,
 * an MCP server, an LLM credential or an operator key at another host must enter the secret again; nothing stored
 * is ever sent to the new host.
 */
describe('secrets bound to their origin', () => {
  let t: TestApp;
  let admin: string;
  /** The host an attacker (or a typo) re-points things at: it must never see a stored secret. */
  let elsewhere: HttpFake;
  let shop: McpShopServer;
  let oa: HttpFake;

  beforeAll(async () => {
    elsewhere = await startHttpFake(() => ({ ok: true }));
    shop = await startMcpShopServer({ token: MCP_TOKEN });
    oa = await startHttpFake(() => ({ ok: true }));
    t = await startTestApp();
    admin = await t.token('root', 'acme', ['admin']);
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([elsewhere.close(), shop.close(), oa.close()]);
  });

  /** Every header any request to `elsewhere` carried, as one text. */
  const seenElsewhere = () => JSON.stringify(elsewhere.requests.map((r) => r.headers));

  it("break 3: PUT an MCP server with only a new url's origin is a 400 naming the headers to re-enter; the token stays home", async () => {
    const created = await t.request('POST', '/api/mcp-servers', {
      token: admin,
      body: { name: 'shop', url: shop.url, headers: { Authorization: `Bearer ${MCP_TOKEN}` } },
    });
    expect(created.status).toBe(201);
    const moved = await t.request('PUT', `/api/mcp-servers/${created.body.id}`, {
      token: admin,
      body: { name: 'shop', url: `${elsewhere.url}/mcp` },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toContain(
      'changing url to another origin requires re-entering the stored secrets: headers.Authorization',
    );
    expect(seenElsewhere()).not.toContain(MCP_TOKEN);
    const kept = await t.request('GET', `/api/mcp-servers/${created.body.id}`, { token: admin });
    expect(kept.body).toMatchObject({ url: shop.url, status: 'connected' });

    // The same origin (another path) keeps the token; another origin with the headers entered again is saved.
    const samePath = await t.request('PUT', `/api/mcp-servers/${created.body.id}`, {
      token: admin,
      body: { name: 'shop', url: shop.url.replace(/\/mcp$/, '/mcp/') },
    });
    expect(samePath.status).toBe(200);
    expect(samePath.body.header_keys).toEqual(['Authorization']);
    const reentered = await t.request('PUT', `/api/mcp-servers/${created.body.id}`, {
      token: admin,
      body: { name: 'shop', url: `${elsewhere.url}/mcp`, headers: { Authorization: 'Bearer for-elsewhere' } },
    });
    expect(reentered.status).toBe(200);
    expect(seenElsewhere()).not.toContain(MCP_TOKEN);
  });

  it("break 4: PUT a connector with only a new base_url's origin is a 400 naming the headers; its calls keep going home", async () => {
    const actions = [{ name: 'status', method: 'GET', path: '/status' }];
    const created = await t.request('POST', '/api/connectors', {
      token: admin,
      body: { name: 'oa', base_url: oa.url, headers: { Authorization: CONNECTOR_SECRET, 'X-Tenant': 'acme' }, actions },
    });
    expect(created.status).toBe(201);
    const moved = await t.request('PUT', `/api/connectors/${created.body.id}`, {
      token: admin,
      body: { name: 'oa', base_url: `${elsewhere.url}/api`, actions },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toContain(
      'changing base_url to another origin requires re-entering the stored secrets: headers.Authorization, headers.X-Tenant',
    );

    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'oa-caller',
        model_config_json: {
          model: {
            provider: 'scripted',
            script: [{ tool_calls: [{ name: 'oa__status', args: {} }] }, { content: 'done' }],
          },
          tools: ['oa__status'],
        },
      },
    });
    expect(agent.status).toBe(201);
    const run = await chat(t, admin, { agent_id: agent.body.id, message: 'status?' });
    expect(run.events.at(-1)?.data.status).toBe('completed');
    expect(oa.requests.at(-1)?.headers.authorization).toBe(CONNECTOR_SECRET);
    expect(seenElsewhere()).not.toContain(CONNECTOR_SECRET);

    // A new path on the same origin keeps the headers; another origin with the headers entered again is saved.
    const samePath = await t.request('PUT', `/api/connectors/${created.body.id}`, {
      token: admin,
      body: { name: 'oa', base_url: `${oa.url}/v2`, actions },
    });
    expect(samePath.status).toBe(200);
    expect([...samePath.body.header_keys].sort()).toEqual(['Authorization', 'X-Tenant']);
    const reentered = await t.request('PUT', `/api/connectors/${created.body.id}`, {
      token: admin,
      body: { name: 'oa', base_url: elsewhere.url, headers: { Authorization: 'Bearer for-elsewhere' }, actions },
    });
    expect(reentered.status).toBe(200);
    expect(seenElsewhere()).not.toContain(CONNECTOR_SECRET);
  });
});

/** The operator's keys (server variables an agent names in `api_key_env`) go only to the origin LLM_KEY_ORIGINS lists. */
describe('operator LLM keys bound to LLM_KEY_ORIGINS', () => {
  let t: TestApp;
  let admin: string;
  let llm: FakeOpenAI;
  let elsewhere: FakeOpenAI;

  beforeAll(async () => {
    llm = await startFakeOpenAI(() => ({ content: 'from the real model' }));
    elsewhere = await startFakeOpenAI(() => ({ content: 'from a host that collects keys' }));
    t = await startTestApp({
      LLM_KEY_ENV_ALLOW: 'LLM_API_KEY,WARDEN_LLM_KEY_*',
      LLM_API_KEY: OPERATOR_KEY,
      WARDEN_LLM_KEY_SPARE: 'sk-spare-0123456789',
      LLM_KEY_ORIGINS: `LLM_API_KEY=${new URL(llm.baseUrl).origin}`,
    });
    admin = await t.token('root', 'acme', ['admin']);
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([llm.close(), elsewhere.close()]);
  });

  const agent = (name: string, baseUrl: string, keyEnv: string) =>
    t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name,
        model_config_json: { model: { provider: 'openai', base_url: baseUrl, model: 'm', api_key_env: keyEnv } },
      },
    });
  const keysSeenElsewhere = () => JSON.stringify(elsewhere.http.requests.map((r) => r.headers));

  it("break 1: an agent naming the operator's key with its own base_url is a 400 naming the variable; nothing is sent", async () => {
    const stolen = await agent('collector', elsewhere.baseUrl, 'LLM_API_KEY');
    expect(stolen.status).toBe(400);
    expect(stolen.body.message).toContain(
      `model_config_json.model.api_key_env "LLM_API_KEY" may only be sent to ${new URL(llm.baseUrl).origin} (LLM_KEY_ORIGINS)`,
    );
    const unbound = await agent('spare', llm.baseUrl, 'WARDEN_LLM_KEY_SPARE');
    expect(unbound.status).toBe(400);
    expect(unbound.body.message).toContain(
      'model_config_json.model.api_key_env "WARDEN_LLM_KEY_SPARE" has no origin in LLM_KEY_ORIGINS',
    );
    expect(elsewhere.http.requests).toHaveLength(0);
  });

  it('the key goes to its own origin; an agent re-pointed behind the API is refused at run time (fail closed)', async () => {
    const created = await agent('assistant', llm.baseUrl, 'LLM_API_KEY');
    expect(created.status).toBe(201);
    const ok = await chat(t, admin, { agent_id: created.body.id, message: 'hi' });
    expect(ok.events.at(-1)?.data.status).toBe('completed');
    expect(llm.http.requests.at(-1)?.headers.authorization).toBe(`Bearer ${OPERATOR_KEY}`);

    // Saved through the API, then re-pointed in the database before its first run (so no cached copy is read).
    const repointed = await agent('repointed', llm.baseUrl, 'LLM_API_KEY');
    expect(repointed.status).toBe(201);
    const sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
    try {
      await sql.query(
        `UPDATE agents SET model_config_json = jsonb_set(model_config_json, '{model,base_url}', to_jsonb($2::text)) WHERE id = $1`,
        [repointed.body.id, elsewhere.baseUrl],
      );
    } finally {
      await sql.end();
    }
    const refused = await chat(t, admin, { agent_id: repointed.body.id, message: 'hi again' });
    expect(refused.events.at(-1)?.data.status).toBe('failed');
    expect(refused.events.find((e) => e.event === 'error')?.data.message).toContain(
      `"LLM_API_KEY" may only be sent to ${new URL(llm.baseUrl).origin} (LLM_KEY_ORIGINS)`,
    );
    expect(keysSeenElsewhere()).not.toContain(OPERATOR_KEY);
  });

  it('a malformed LLM_KEY_ORIGINS stops the server at boot with a message naming the variable', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'warden-key-origins-'));
    try {
      const { code, output } = await bootExpectingFailure({
        LLM_KEY_ORIGINS: 'LLM_API_KEY',
        PGLITE_DIR: path.join(dir, 'db'),
      });
      expect(code).toBe(1);
      expect(output).toContain('LLM_KEY_ORIGINS="LLM_API_KEY": LLM_KEY_ORIGINS must list NAME=https://origin pairs');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

/** An org's stored LLM credential goes only to the origin it was stored for; a new origin needs the key again. */
describe('LLM credentials bound to their origin', () => {
  let t: TestApp;
  let admin: string;
  let llm: FakeOpenAI;
  let elsewhere: FakeOpenAI;

  beforeAll(async () => {
    llm = await startFakeOpenAI(() => ({ content: 'from the real model' }));
    elsewhere = await startFakeOpenAI(() => ({ content: 'from a host that collects keys' }));
    t = await startTestApp();
    admin = await t.token('root', 'acme', ['admin']);
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([llm.close(), elsewhere.close()]);
  });

  const agent = (name: string, baseUrl: string, credentialId: string) =>
    t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name,
        model_config_json: {
          model: { provider: 'openai', base_url: baseUrl, model: 'm', api_key_credential_id: credentialId },
        },
      },
    });
  const keysSeenElsewhere = () => JSON.stringify(elsewhere.http.requests.map((r) => r.headers));

  it('break 2: a credential is stored for an origin; an agent pointing it at another host is a 400 naming both', async () => {
    const noOrigin = await t.request('POST', '/api/llm-credentials', {
      token: admin,
      body: { name: 'k0', api_key: ORG_KEY },
    });
    expect(noOrigin.status).toBe(400);
    expect(JSON.stringify(noOrigin.body.message)).toContain('origin');
    const cred = await t.request('POST', '/api/llm-credentials', {
      token: admin,
      body: { name: 'openai-prod', api_key: ORG_KEY, origin: llm.baseUrl },
    });
    expect(cred.status).toBe(201);
    expect(cred.body.origin).toBe(new URL(llm.baseUrl).origin);

    const stolen = await agent('collector', elsewhere.baseUrl, cred.body.id);
    expect(stolen.status).toBe(400);
    expect(stolen.body.message).toContain(
      `model_config_json.model.api_key_credential_id "${cred.body.id}" may only be sent to ${new URL(llm.baseUrl).origin}`,
    );
    expect(elsewhere.http.requests).toHaveLength(0);
  });

  it('the key goes to its origin; an agent re-pointed behind the API is refused at run time (fail closed)', async () => {
    const [cred] = (await t.request('GET', '/api/llm-credentials', { token: admin })).body;
    const created = await agent('assistant', `${llm.baseUrl}/`, cred.id);
    expect(created.status).toBe(201);
    const ok = await chat(t, admin, { agent_id: created.body.id, message: 'hi' });
    expect(ok.events.at(-1)?.data.status).toBe('completed');
    expect(llm.http.requests.at(-1)?.headers.authorization).toBe(`Bearer ${ORG_KEY}`);

    // Saved through the API, then re-pointed in the database before its first run (so no cached copy is read).
    const repointed = await agent('repointed', llm.baseUrl, cred.id);
    expect(repointed.status).toBe(201);
    const sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
    try {
      await sql.query(
        `UPDATE agents SET model_config_json = jsonb_set(model_config_json, '{model,base_url}', to_jsonb($2::text)) WHERE id = $1`,
        [repointed.body.id, elsewhere.baseUrl],
      );
    } finally {
      await sql.end();
    }
    const refused = await chat(t, admin, { agent_id: repointed.body.id, message: 'hi again' });
    expect(refused.events.at(-1)?.data.status).toBe('failed');
    expect(refused.events.find((e) => e.event === 'error')?.data.message).toContain(
      `may only be sent to ${new URL(llm.baseUrl).origin}`,
    );
    expect(keysSeenElsewhere()).not.toContain(ORG_KEY);
  });

  it('PUT /api/llm-credentials/:id moves a credential to another origin only with the key entered again', async () => {
    const [cred] = (await t.request('GET', '/api/llm-credentials', { token: admin })).body;
    const put = (body: unknown) => t.request('PUT', `/api/llm-credentials/${cred.id}`, { token: admin, body });
    const moved = await put({ name: cred.name, origin: elsewhere.baseUrl });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toContain(
      'changing origin to another origin requires re-entering the stored secrets: api_key',
    );
    const renamed = await put({ name: 'openai-main', origin: `${new URL(llm.baseUrl).origin}/v1` });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: cred.id, name: 'openai-main', origin: new URL(llm.baseUrl).origin });
    const rekeyed = await put({ name: 'openai-main', origin: elsewhere.baseUrl, api_key: 'sk-for-elsewhere-0123' });
    expect(rekeyed.status).toBe(200);
    expect(rekeyed.body.origin).toBe(new URL(elsewhere.baseUrl).origin);
    expect(rekeyed.text).not.toContain('sk-for-elsewhere');
    const notHttp = await put({ name: 'x', origin: 'ftp://llm.example', api_key: 'sk-x' });
    expect(notHttp.status).toBe(400);
    expect(notHttp.body.message).toContain('origin "ftp://llm.example" must be an absolute http(s) URL');
    expect(keysSeenElsewhere()).not.toContain(ORG_KEY);
  });
});
