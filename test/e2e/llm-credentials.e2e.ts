import pg from 'pg';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat } from './runtime-helpers.js';

const SECRET = 'sk-live-org-acme-0123456789';

/**
 * Org-scoped LLM credentials: an admin stores a model API key once (encrypted like channel secrets, never returned)
 * and agents name it by id, so no key has to be a server environment variable.
 */
describe('LLM credentials', () => {
  let t: TestApp;
  let llm: FakeOpenAI;
  let admin: string;
  let member: string;
  let otherAdmin: string;

  beforeAll(async () => {
    llm = await startFakeOpenAI(() => ({ content: 'hello from the model' }));
    t = await startTestApp();
    admin = await t.token('root', 'acme', ['admin']);
    member = await t.token('alice', 'acme', []);
    otherAdmin = await t.token('mallory', 'globex', ['admin']);
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  // Every key here is for the fake model server's origin (secrets-origin.e2e.ts tests the binding itself).
  const create = (token: string, body: Record<string, unknown>) =>
    t.request('POST', '/api/llm-credentials', { token, body: { origin: llm.baseUrl, ...body } });
  const agent = (token: string, name: string, model: Record<string, unknown>) =>
    t.request('POST', '/api/agents', {
      token,
      body: {
        name,
        model_config_json: { model: { provider: 'openai', base_url: llm.baseUrl, model: 'm', ...model } },
      },
    });

  it('an admin stores a key: write-only (never returned, encrypted at rest), listed with id, name, origin, created_at and by', async () => {
    const res = await create(admin, { name: 'openai-prod', api_key: SECRET });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'openai-prod',
      origin: new URL(llm.baseUrl).origin,
      created_at: expect.any(String),
      created_by: 'root',
    });
    const list = await t.request('GET', '/api/llm-credentials', { token: admin });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([res.body]);
    expect(list.text + res.text).not.toContain(SECRET);
    const sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
    try {
      const dump = JSON.stringify((await sql.query('SELECT * FROM llm_credentials')).rows);
      expect(dump).not.toContain(SECRET);
      expect(dump).toContain('openai-prod');
    } finally {
      await sql.end();
    }
  });

  it('members may neither store nor list credentials; bad bodies are 400s naming the field; a duplicate name is a 409', async () => {
    expect((await create(member, { name: 'x', api_key: 'k' })).status).toBe(403);
    expect((await t.request('GET', '/api/llm-credentials', { token: member })).status).toBe(403);
    const missing = await create(admin, { name: 'no-key' });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.message)).toMatch(/api_key/);
    const dup = await create(admin, { name: 'openai-prod', api_key: 'other' });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toMatch(/openai-prod/);
  });

  it('an agent naming the credential by id sends its key as the bearer token', async () => {
    const cred = await create(admin, { name: 'for-agent', api_key: SECRET });
    const created = await agent(admin, 'uses-cred', { api_key_credential_id: cred.body.id });
    expect(created.status).toBe(201);
    const res = await chat(t, admin, { agent_id: created.body.id, message: 'hi' });
    expect(res.events.at(-1)?.data.status).toBe('completed');
    expect(llm.http.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it("another org's credential, an unknown id, or a credential together with api_key_env is a 400 naming the field; nothing saved", async () => {
    const foreign = await create(otherAdmin, { name: 'globex-key', api_key: 'sk-globex' });
    expect(foreign.status).toBe(201);
    const before = (await t.request('GET', '/api/agents', { token: admin })).body.length;
    for (const [model, message] of [
      [
        { api_key_credential_id: foreign.body.id },
        /model_config_json\.model\.api_key_credential_id ".*" is not an LLM credential of this organisation/,
      ],
      [
        { api_key_credential_id: '00000000-0000-4000-8000-000000000000' },
        /api_key_credential_id ".*" is not an LLM credential of this organisation/,
      ],
      [
        { api_key_credential_id: 'not-a-uuid' },
        /api_key_credential_id ".*" is not an LLM credential of this organisation/,
      ],
      [{ api_key_credential_id: 42 }, /api_key_credential_id must be a string/],
      [
        { api_key_credential_id: foreign.body.id, api_key_env: 'WARDEN_LLM_KEY_X' },
        /either model\.api_key_env or model\.api_key_credential_id, not both/,
      ],
    ] as const) {
      const res = await agent(admin, 'steals-key', model);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await t.request('GET', '/api/agents', { token: admin })).body.length).toBe(before);
    expect((await t.request('GET', '/api/llm-credentials', { token: admin })).text).not.toContain('globex-key');
  });

  it('a credential in use cannot be deleted (409 naming the agents); unused it is 204, and gone; another org gets 404', async () => {
    const cred = await create(admin, { name: 'to-delete', api_key: 'sk-delete-me' });
    const user = await agent(admin, 'holds-cred', { api_key_credential_id: cred.body.id });
    expect((await t.request('DELETE', `/api/llm-credentials/${cred.body.id}`, { token: otherAdmin })).status).toBe(404);
    const inUse = await t.request('DELETE', `/api/llm-credentials/${cred.body.id}`, { token: admin });
    expect(inUse.status).toBe(409);
    expect(inUse.body.message).toMatch(/holds-cred/);
    expect((await t.request('DELETE', `/api/agents/${user.body.id}`, { token: admin })).status).toBe(204);
    expect((await t.request('DELETE', `/api/llm-credentials/${cred.body.id}`, { token: admin })).status).toBe(204);
    const names = (await t.request('GET', '/api/llm-credentials', { token: admin })).body.map(
      (c: { name: string }) => c.name,
    );
    expect(names).not.toContain('to-delete');
  });

  it('a run whose credential vanished fails naming it, and sends no request to the model server', async () => {
    const cred = await create(admin, { name: 'vanishing', api_key: 'sk-vanish' });
    const created = await agent(admin, 'orphaned', { api_key_credential_id: cred.body.id });
    const sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
    await sql.query('DELETE FROM llm_credentials WHERE id = $1', [cred.body.id]);
    await sql.end();
    const seen = llm.http.requests.length;
    const res = await chat(t, admin, { agent_id: created.body.id, message: 'hi' });
    expect(res.text).toMatch(/LLM credential .* no longer exists/);
    expect(llm.http.requests.length).toBe(seen);
  });
});
