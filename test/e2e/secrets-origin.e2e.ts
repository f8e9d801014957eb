import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startMcpShopServer, type McpShopServer } from '../fakes/mcp-shop-server.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const MCP_TOKEN = 'mcp-token-of-the-shop-0123';

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

  beforeAll(async () => {
    elsewhere = await startHttpFake(() => ({ ok: true }));
    shop = await startMcpShopServer({ token: MCP_TOKEN });
    t = await startTestApp();
    admin = await t.token('root', 'acme', ['admin']);
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([elsewhere.close(), shop.close()]);
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
    expect(moved.body.message).toContain('changing url to another origin requires re-entering the stored secrets: headers.Authorization');
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
});
