import pg from 'pg';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { OA_ACTIONS } from './runtime-helpers.js';

const MCP_TOKEN_1 = 'mcp-bearer-SECRET-one';
const MCP_TOKEN_2 = 'mcp-bearer-SECRET-two';
const LLM_KEY = 'sk-llm-SECRET-key-value';
// Nothing listens here: the server is saved (and shown "unreachable"), which is all these tests need.
const MCP_URL = 'http://127.0.0.1:9/mcp';

/**
 * #29 break 5: org hooks, MCP servers (tool overrides that remove approvals included) and LLM credentials are changes
 * that widen power; each writes one event to the hash-chained trail in the transaction of the change, secrets only
 * as `secret_changed`, and `GET /api/audit/verify` covers them.
 */
describe('audit trail: org hooks, MCP servers and LLM credentials (PostgreSQL)', () => {
  let t: TestApp;
  let admin: string;
  let adminUserId: string;
  let db: pg.Client;

  const get = (path: string) => t.request('GET', path, { token: admin });
  const eventsOf = async (entityType: string, entityId?: string) => {
    const query = `entity_type=${entityType}${entityId ? `&entity_id=${entityId}` : ''}`;
    return (await get(`/api/audit/config-events?${query}`)).body.items as any[];
  };

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.token('alice', 'acme', ['admin']);
    adminUserId = (await get('/api/me')).body.user_id;
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
  });

  it('PUT /api/org/hooks records who changed the org hooks and the diff', async () => {
    expect(
      (await t.request('PUT', '/api/org/hooks', { token: admin, body: { class_hooks: ['audit_log'] } })).status,
    ).toBe(200);
    const next = { class_hooks: ['audit_log', { name: 'result_truncate', config: { max_chars: 100 } }] };
    expect((await t.request('PUT', '/api/org/hooks', { token: admin, body: next })).status).toBe(200);

    const [updated, first] = await eventsOf('org_hooks');
    expect(first).toMatchObject({
      action: 'org_hooks.updated',
      actor: adminUserId,
      payload: { before: { hooks: {} } },
    });
    expect(updated).toMatchObject({
      kind: 'config',
      action: 'org_hooks.updated',
      actor: adminUserId,
      entity_type: 'org_hooks',
    });
    expect(updated.payload.changes).toEqual([
      {
        path: 'hooks.class_hooks',
        before: ['audit_log'],
        after: ['audit_log', { name: 'result_truncate', config: { max_chars: 100 } }],
      },
    ]);
  });

  /** Runs `change` while the trail refuses events of `action` (as a full disk or a lost connection would). */
  async function withAuditRefused(action: string, change: () => Promise<{ status: number }>): Promise<void> {
    await db.query(`CREATE FUNCTION refuse_audit_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.action = '${action}' THEN RAISE EXCEPTION 'audit refused'; END IF; RETURN NEW; END $$`);
    await db.query(
      `CREATE TRIGGER refuse_audit_event BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_audit_event()`,
    );
    try {
      expect((await change()).status).toBe(500);
    } finally {
      await db.query(`DROP TRIGGER refuse_audit_event ON audit_events; DROP FUNCTION refuse_audit_event()`);
    }
  }

  it('a change whose audit event cannot be written is not made (one transaction): org hooks, MCP servers, LLM keys, connectors, channels', async () => {
    const before = (await get('/api/org/hooks')).body.hooks;
    await withAuditRefused('org_hooks.updated', () =>
      t.request('PUT', '/api/org/hooks', { token: admin, body: { class_hooks: [] } }),
    );
    expect((await get('/api/org/hooks')).body.hooks).toEqual(before);

    const mcp = { name: 'refused', url: MCP_URL, headers: { Authorization: `Bearer ${MCP_TOKEN_1}` } };
    await withAuditRefused('mcp_server.created', () =>
      t.request('POST', '/api/mcp-servers', { token: admin, body: mcp }),
    );
    expect((await get('/api/mcp-servers')).body).toEqual([]);

    const key = { name: 'refused', api_key: LLM_KEY, origin: 'https://api.openai.com' };
    await withAuditRefused('llm_credential.created', () =>
      t.request('POST', '/api/llm-credentials', { token: admin, body: key }),
    );
    expect((await get('/api/llm-credentials')).body).toEqual([]);

    const connector = {
      name: 'refused',
      base_url: 'http://127.0.0.1:9',
      headers: { 'X-Api-Key': 'k' },
      actions: OA_ACTIONS,
    };
    await withAuditRefused('connector.created', () =>
      t.request('POST', '/api/connectors', { token: admin, body: connector }),
    );
    expect((await get('/api/connectors')).body).toEqual([]);

    const channel = { type: 'inbox', name: 'refused', is_default: true };
    await withAuditRefused('channel.created', () =>
      t.request('POST', '/api/channels', { token: admin, body: channel }),
    );
    expect((await get('/api/channels')).body).toEqual([]);
    expect((await get('/api/org')).body.default_channel_id).toBeNull();
  });

  it('MCP servers: create, an update that removes an approval override and re-keys the token, delete; tokens never recorded', async () => {
    const created = await t.request('POST', '/api/mcp-servers', {
      token: admin,
      body: {
        name: 'shop',
        url: MCP_URL,
        headers: { Authorization: `Bearer ${MCP_TOKEN_1}` },
        tool_overrides: { pay: { requires_confirmation: true } },
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const update = {
      name: 'shop',
      url: MCP_URL,
      headers: { Authorization: `Bearer ${MCP_TOKEN_2}` },
      tool_overrides: {},
    };
    expect((await t.request('PUT', `/api/mcp-servers/${id}`, { token: admin, body: update })).status).toBe(200);
    expect((await t.request('DELETE', `/api/mcp-servers/${id}`, { token: admin })).status).toBe(204);

    const [deleted, updated, made] = await eventsOf('mcp_server', id);
    expect(made).toMatchObject({ action: 'mcp_server.created', actor: adminUserId, payload: { before: null } });
    expect(made.payload.after).toMatchObject({ name: 'shop', url: MCP_URL, header_keys: ['Authorization'] });
    expect(updated).toMatchObject({ action: 'mcp_server.updated', actor: adminUserId, entity_id: id });
    expect(updated.payload.changes).toEqual([
      { path: 'tool_overrides.pay', before: { requires_confirmation: true }, after: null },
      { path: 'secrets.headers.Authorization', secret_changed: true },
    ]);
    expect(deleted).toMatchObject({ action: 'mcp_server.deleted', actor: adminUserId, payload: { after: null } });
    const trail = (await get('/api/audit/events/export?format=jsonl')).text;
    for (const secret of [MCP_TOKEN_1, MCP_TOKEN_2]) expect(trail).not.toContain(secret);
  });

  it('LLM credentials: storing and deleting a key are secret_changed events; the key is never recorded', async () => {
    const created = await t.request('POST', '/api/llm-credentials', {
      token: admin,
      body: { name: 'openai-prod', api_key: LLM_KEY, origin: 'https://api.openai.com' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await t.request('DELETE', `/api/llm-credentials/${id}`, { token: admin })).status).toBe(204);

    const [deleted, made] = await eventsOf('llm_credential', id);
    expect(made).toMatchObject({
      action: 'llm_credential.created',
      actor: adminUserId,
      payload: { before: null, after: { name: 'openai-prod', origin: 'https://api.openai.com' } },
    });
    expect(made.payload.changes).toEqual([{ path: 'secrets.api_key', secret_changed: true }]);
    expect(deleted).toMatchObject({ action: 'llm_credential.deleted', actor: adminUserId, payload: { after: null } });
    expect(deleted.payload.changes).toEqual([{ path: 'secrets.api_key', secret_changed: true }]);
    expect((await get('/api/audit/events/export?format=jsonl')).text).not.toContain(LLM_KEY);
  });

  it('GET /api/audit/verify covers these events: an edited MCP event breaks the chain at its seq', async () => {
    expect((await get('/api/audit/verify')).body).toMatchObject({ valid: true, first_broken: null });
    const [updated] = (await get('/api/audit/config-events?action=mcp_server.updated')).body.items;
    const org = (await get('/api/org')).body.id;
    const original = (
      await db.query(`SELECT payload FROM audit_events WHERE org_id = $1 AND seq = $2`, [org, updated.seq])
    ).rows[0].payload;
    // Rewriting history: the override removal is made to look like nothing changed.
    await db.query(
      `UPDATE audit_events SET payload = jsonb_set(payload, '{changes}', '[]') WHERE org_id = $1 AND seq = $2`,
      [org, updated.seq],
    );
    expect((await get('/api/audit/verify')).body).toMatchObject({
      valid: false,
      first_broken: { seq: updated.seq, action: 'mcp_server.updated', reason: expect.stringContaining('edited') },
    });
    await db.query(`UPDATE audit_events SET payload = $3 WHERE org_id = $1 AND seq = $2`, [org, updated.seq, original]);
    expect((await get('/api/audit/verify')).body.valid).toBe(true);
  });
});
