import pg from 'pg';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startMcpShopServer, type McpShopServer } from '../fakes/mcp-shop-server.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, openChat } from './runtime-helpers.js';

const TOKEN = 'mcp-secret-token-0123456789';

/**
 * Break 10 of #28: tool names `<name>__<tool>` are unique across connectors and MCP servers. A connector that took
 * an MCP server's name made `shop__pay` resolve to the connector's ungated action.
 */
describe('tool namespaces: connectors and MCP servers never share a name', () => {
  let t: TestApp;
  let shop: McpShopServer;
  let api: HttpFake;
  let admin: string;
  let db: pg.Client;

  const connector = (name: string) => ({
    name,
    base_url: api.url,
    actions: [
      {
        name: 'pay',
        method: 'POST',
        path: '/pay',
        parameters: { type: 'object', properties: { amount: { type: 'number' } } },
      },
    ],
  });
  const mcpServer = (name: string) => ({ name, url: shop.url, headers: { Authorization: `Bearer ${TOKEN}` } });
  const post = (path: string, body: unknown) => t.request('POST', path, { token: admin, body });
  const put = (path: string, body: unknown) => t.request('PUT', path, { token: admin, body });
  const payer = async (name: string) => {
    const res = await post('/api/agents', {
      name,
      instructions: 'x',
      model_config_json: {
        model: {
          provider: 'scripted',
          script: [
            { tool_calls: [{ name: 'shop__pay', args: { invoice: 'INV-1', amount: 10 } }] },
            { content: 'done' },
          ],
        },
        tools: ['shop__*'],
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  beforeAll(async () => {
    shop = await startMcpShopServer({ token: TOKEN });
    api = await startHttpFake(() => ({ paid: true }));
    t = await startTestApp();
    admin = await t.token('alice', 'acme', ['admin']);
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
    await shop?.close();
    await api?.close();
  });

  it("a connector may not take an MCP server's name, at create or rename, in any case: 409 naming it, nothing saved", async () => {
    expect((await post('/api/mcp-servers', mcpServer('shop'))).status).toBe(201);
    for (const name of ['shop', 'Shop']) {
      const taken = await post('/api/connectors', connector(name));
      expect(taken.status).toBe(409);
      expect(taken.body.message).toContain(`"${name}"`);
      expect(taken.body.message).toContain('MCP server "shop"');
    }
    const billing = await post('/api/connectors', connector('billing'));
    expect(billing.status).toBe(201);
    const renamed = await put(`/api/connectors/${billing.body.id}`, connector('shop'));
    expect(renamed.status).toBe(409);
    expect(renamed.body.message).toContain('"shop"');
    expect((await t.request('GET', `/api/connectors/${billing.body.id}`, { token: admin })).body.name).toBe('billing');
    // Renaming to itself, or to another case of its own name, is no collision.
    expect((await put(`/api/connectors/${billing.body.id}`, connector('Billing'))).status).toBe(200);

    // shop__pay is still the MCP server's gated tool: it asks, and once rejected nothing is sent anywhere.
    const live = openChat(t, admin, { agent_id: await payer('payer'), message: 'pay' });
    const pending = await live.next('confirmation_pending');
    expect(pending.data.tool).toBe('shop__pay');
    await post(`/api/confirmations/${pending.data.confirmation_id}/decision`, { decision: 'reject' });
    await live.finished;
    expect(api.requests).toHaveLength(0);
    expect(shop.calls).toHaveLength(0);
  });

  it("an MCP server may not take a connector's name or another server's in another case, at create or rename: 409", async () => {
    for (const name of ['billing', 'BILLING', 'Shop']) {
      const taken = await post('/api/mcp-servers', mcpServer(name));
      expect(taken.status).toBe(409);
      expect(taken.body.message).toContain(`"${name}"`);
    }
    const other = await post('/api/mcp-servers', mcpServer('other'));
    expect(other.status).toBe(201);
    const renamed = await put(`/api/mcp-servers/${other.body.id}`, mcpServer('Billing'));
    expect(renamed.status).toBe(409);
    expect(renamed.body.message).toContain('connector "Billing"');
    expect((await put(`/api/mcp-servers/${other.body.id}`, mcpServer('Other'))).status).toBe(200);
  });

  it('a connector and an MCP server created at the same moment under one name: exactly one is saved, the other gets 409', async () => {
    for (let i = 0; i < 5; i++) {
      const name = `race${i}`;
      const [c, m] = await Promise.all([
        post('/api/connectors', connector(name)),
        post('/api/mcp-servers', mcpServer(name)),
      ]);
      expect([c.status, m.status].sort()).toEqual([201, 409]);
      const { rows } = await db.query(
        `SELECT (SELECT count(*) FROM connectors WHERE name = $1) + (SELECT count(*) FROM mcp_servers WHERE name = $1) AS n`,
        [name],
      );
      expect(Number(rows[0].n)).toBe(1);
    }
  });

  it('a name shared before the rule existed (legacy rows) resolves to neither tool: the call is refused, nothing is sent', async () => {
    const agent = await payer('legacy-payer');
    // A connector row written before the namespace existed: its namespace row is missing, the MCP server's remains.
    const legacy = await post('/api/connectors', connector('legacy'));
    expect(legacy.status).toBe(201);
    await db.query(`DELETE FROM tool_namespaces WHERE owner_id = $1`, [legacy.body.id]);
    await db.query(`ALTER TABLE connectors DISABLE TRIGGER USER`);
    try {
      await db.query(`UPDATE connectors SET name = 'shop' WHERE id = $1`, [legacy.body.id]);
    } finally {
      await db.query(`ALTER TABLE connectors ENABLE TRIGGER USER`);
    }
    await db.query(`NOTIFY warden_config, '*'`);
    const before = shop.calls.length;
    const res = await chat(t, admin, { agent_id: agent, message: 'pay' });
    const observation = res.events.find((e) => e.event === 'observation')!.data;
    expect(observation).toMatchObject({ tool: 'shop__pay', ok: false });
    expect(observation.content).toContain('unknown tool "shop__pay"');
    expect(api.requests).toHaveLength(0);
    expect(shop.calls.length).toBe(before);
  });
});
