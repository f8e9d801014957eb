import pg from 'pg';
import { startMcpShopServer, type McpShopServer } from '../fakes/mcp-shop-server.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, openChat } from './runtime-helpers.js';

const TOKEN = 'mcp-secret-token-0123456789';

/** Acceptance 4 of #21: an MCP server's tools behind the same hooks, gate, audit, rate limits and eval simulation. */
describe('MCP servers as tool sources', () => {
  let t: TestApp;
  let shop: McpShopServer;
  let admin: string;
  let member: string;
  let serverId: string;
  let db: pg.Client;

  const scripted = (
    calls: Array<{ name: string; args: Record<string, unknown> }>,
    extra: Record<string, unknown> = {},
  ) => ({
    model: { provider: 'scripted', script: [{ tool_calls: calls }, { content: 'done' }] },
    tools: ['shop__*'],
    ...extra,
  });
  const createAgent = async (name: string, config: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name, instructions: 'x', model_config_json: config },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const callsOf = (tool: string) => shop.calls.filter((c) => c.tool === tool);

  beforeAll(async () => {
    shop = await startMcpShopServer({ token: TOKEN });
    t = await startTestApp();
    admin = await t.token('alice', 'acme', ['admin']);
    member = await t.token('bob', 'acme', []);
    await t.request('GET', '/api/me', { token: member });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
    await shop?.close();
  });
  afterEach(async () => {
    await t.request('PUT', '/api/org/read-only', { token: admin, body: { read_only: false } });
  });

  it('an admin registers the server: tools appear as <server>__<tool> with read/write from annotations; the token is stored sealed, never shown', async () => {
    expect(
      (await t.request('POST', '/api/mcp-servers', { token: member, body: { name: 'shop', url: shop.url } })).status,
    ).toBe(403);
    const bad = await t.request('POST', '/api/mcp-servers', {
      token: admin,
      body: {
        name: 'shop',
        url: 'ftp://x',
        tool_overrides: { pay: { requires_confirmation_when: 'args.amount >', approve: true } },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.problems).toEqual([
      'url "ftp://x" must be an absolute http(s) URL (streamable HTTP endpoint)',
      'tool_overrides.pay.approve: unknown key (expected requires_confirmation, requires_confirmation_when, write)',
      expect.stringMatching(/^tool_overrides\.pay\.requires_confirmation_when: /),
    ]);
    const created = await t.request('POST', '/api/mcp-servers', {
      token: admin,
      body: {
        name: 'shop',
        url: shop.url,
        headers: { Authorization: `Bearer ${TOKEN}` },
        tool_overrides: { pay: { requires_confirmation_when: 'args.amount > 50000' } },
      },
    });
    expect(created.status).toBe(201);
    serverId = created.body.id;
    expect(created.text).not.toContain(TOKEN);
    expect(created.body).toMatchObject({
      name: 'shop',
      header_keys: ['Authorization'],
      status: 'connected',
      error: null,
    });
    const tools = Object.fromEntries(created.body.tools.map((x: any) => [x.name, x]));
    expect(tools.shop__pay).toMatchObject({
      tool: 'pay',
      write: true,
      destructive_hint: true,
      requires_confirmation: false,
      requires_confirmation_when: 'args.amount > 50000',
    });
    expect(tools.shop__lookup).toMatchObject({
      tool: 'lookup',
      write: false,
      read_only_hint: true,
      requires_confirmation: false,
    });
    expect(tools.shop__pay.parameters.properties).toHaveProperty('amount');
    const { rows } = await db.query(`SELECT sealed_headers FROM mcp_servers WHERE id = $1`, [serverId]);
    expect(rows[0].sealed_headers).not.toContain(TOKEN);
    expect(rows[0].sealed_headers).toMatch(/^v1:/);
  });

  it('pay 60 000 waits at the gate and runs exactly once after approval; the audit row names the server', async () => {
    const agent = await createAgent(
      'payer',
      scripted([{ name: 'shop__pay', args: { invoice: 'INV-1', amount: 60_000 } }]),
    );
    const live = openChat(t, admin, { agent_id: agent, message: 'pay INV-1' });
    const pending = await live.next('confirmation_pending');
    expect(callsOf('pay')).toHaveLength(0);
    const decided = await t.request('POST', `/api/confirmations/${pending.data.confirmation_id}/decision`, {
      token: admin,
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    const events = await live.finished;
    expect(events.at(-1)!.data.status).toBe('completed');
    expect(callsOf('pay')).toEqual([
      { tool: 'pay', args: { invoice: 'INV-1', amount: 60_000 }, authorization: `Bearer ${TOKEN}` },
    ]);
    const observation = events.find((e) => e.event === 'observation')!.data;
    expect(observation).toMatchObject({ tool: 'shop__pay', blocked: false, ok: true, content: 'paid INV-1: 60000' });
    const runId = events[0].data.run_id;
    const audit = await until('audit row', async () => {
      const res = await t.request('GET', `/api/audit/connector-calls?run_id=${runId}`, { token: admin });
      return res.body.find((r: any) => r.success === true);
    });
    expect(audit).toMatchObject({
      tool: 'shop__pay',
      connector: 'shop',
      action: 'pay',
      method: 'MCP',
      success: true,
      blocked_by: null,
    });
  });

  it('a small payment needs no approval; an unapproved (rejected) big one is never sent', async () => {
    const agent = await createAgent(
      'payer-small',
      scripted([{ name: 'shop__pay', args: { invoice: 'INV-2', amount: 10 } }]),
    );
    const small = await chat(t, admin, { agent_id: agent, message: 'pay' });
    expect(small.events.some((e) => e.event === 'confirmation_pending')).toBe(false);
    expect(callsOf('pay').filter((c) => c.args.invoice === 'INV-2')).toHaveLength(1);

    const big = await createAgent(
      'payer-big',
      scripted([{ name: 'shop__pay', args: { invoice: 'INV-3', amount: 70_000 } }]),
    );
    const live = openChat(t, admin, { agent_id: big, message: 'pay' });
    const pending = await live.next('confirmation_pending');
    await t.request('POST', `/api/confirmations/${pending.data.confirmation_id}/decision`, {
      token: admin,
      body: { decision: 'reject' },
    });
    const events = await live.finished;
    expect(events.find((e) => e.event === 'observation')!.data).toMatchObject({
      blocked: true,
      blocked_by: 'confirmation_gate',
    });
    expect(callsOf('pay').filter((c) => c.args.invoice === 'INV-3')).toHaveLength(0);
  });

  it('read-only mode blocks pay and allows lookup (observation text and image as a reference)', async () => {
    await t.request('PUT', '/api/org/read-only', { token: admin, body: { read_only: true } });
    const agent = await createAgent(
      'ro',
      scripted([
        { name: 'shop__pay', args: { invoice: 'INV-4', amount: 5 } },
        { name: 'shop__lookup', args: { invoice: 'INV-4' } },
      ]),
    );
    const res = await chat(t, admin, { agent_id: agent, message: 'pay and look up' });
    const byTool = Object.fromEntries(
      res.events.filter((e) => e.event === 'observation').map((e) => [e.data.tool, e.data]),
    );
    expect(byTool.shop__pay).toMatchObject({ blocked: true, blocked_by: 'read_only_guard' });
    expect(byTool.shop__lookup).toMatchObject({
      blocked: false,
      ok: true,
      content: 'invoice INV-4: open, 60000\n[image image/png, 5 bytes]',
    });
    expect(callsOf('pay').filter((c) => c.args.invoice === 'INV-4')).toHaveLength(0);
    expect(callsOf('lookup').filter((c) => c.args.invoice === 'INV-4')).toHaveLength(1);
  });

  it('PreToolUse hooks and rate limits apply to MCP calls like connector calls', async () => {
    const agent = await createAgent(
      'limited',
      scripted(
        [
          { name: 'shop__lookup', args: { invoice: 'INV-5' } },
          { name: 'shop__lookup', args: { invoice: 'INV-6' } },
        ],
        { hooks: { class_hooks: [{ name: 'connector_rate_limit', config: { points: 1, duration_s: 60 } }] } },
      ),
    );
    const res = await chat(t, admin, { agent_id: agent, message: 'look up twice' });
    const observations = res.events.filter((e) => e.event === 'observation').map((e) => e.data);
    expect(observations.filter((o) => o.blocked_by === 'connector_rate_limit')).toHaveLength(1);
    expect(callsOf('lookup').filter((c) => ['INV-5', 'INV-6'].includes(c.args.invoice as string))).toHaveLength(1);
  });

  it('an eval simulates pay (never sent) and runs lookup for real', async () => {
    const agent = await createAgent(
      'eval-payer',
      scripted([
        { name: 'shop__lookup', args: { invoice: 'INV-7' } },
        { name: 'shop__pay', args: { invoice: 'INV-7', amount: 60_000 } },
      ]),
    );
    const created = await t.request('POST', '/api/evals', {
      token: admin,
      body: {
        agent_id: agent,
        cases: [{ input: 'pay INV-7', fixtures: { shop__pay: { paid: true, receipt: 'R-MCP' } } }],
      },
    });
    expect(created.status).toBe(202);
    const result = await until('eval finished', async () => {
      const r = await t.request('GET', `/api/evals/${created.body.id}`, { token: admin });
      return r.body.status === 'running' ? undefined : r.body;
    });
    expect(result.results[0].tool_calls).toEqual([
      { tool: 'shop__lookup', args: { invoice: 'INV-7' }, simulated: false, status: 'done' },
      { tool: 'shop__pay', args: { invoice: 'INV-7', amount: 60_000 }, simulated: true, status: 'done' },
    ]);
    expect(callsOf('pay').filter((c) => c.args.invoice === 'INV-7')).toHaveLength(0);
    expect(callsOf('lookup').filter((c) => c.args.invoice === 'INV-7')).toHaveLength(1);
  });

  it('a tool without annotations (or calling itself non-destructive) is a write gated by default; an admin override lifts the gate', async () => {
    const listed = await t.request('GET', `/api/mcp-servers/${serverId}`, { token: admin });
    const tools = Object.fromEntries(listed.body.tools.map((x: any) => [x.name, x]));
    expect(tools.shop__cancel).toMatchObject({
      write: true,
      requires_confirmation: true,
      read_only_hint: null,
      destructive_hint: null,
    });
    expect(tools.shop__note).toMatchObject({ write: true, requires_confirmation: true, destructive_hint: false });

    const agent = await createAgent(
      'canceller',
      scripted([
        { name: 'shop__cancel', args: { invoice: 'INV-8' } },
        { name: 'shop__note', args: { invoice: 'INV-8' } },
      ]),
    );
    const live = openChat(t, admin, { agent_id: agent, message: 'cancel INV-8' });
    const asked = await until('both calls ask', () => {
      const found = live.events.filter((e) => e.event === 'confirmation_pending');
      return found.length === 2 ? found : undefined;
    });
    expect(asked.map((e) => e.data.tool).sort()).toEqual(['shop__cancel', 'shop__note']);
    expect([...callsOf('cancel'), ...callsOf('note')]).toHaveLength(0);
    for (const e of asked)
      await t.request('POST', `/api/confirmations/${e.data.confirmation_id}/decision`, {
        token: admin,
        body: { decision: 'reject' },
      });
    const events = await live.finished;
    expect(events.filter((e) => e.event === 'observation').map((e) => e.data.blocked_by)).toEqual([
      'confirmation_gate',
      'confirmation_gate',
    ]);
    expect([...callsOf('cancel'), ...callsOf('note')]).toHaveLength(0);

    const overridden = await t.request('PUT', `/api/mcp-servers/${serverId}`, {
      token: admin,
      body: {
        name: 'shop',
        url: shop.url,
        tool_overrides: {
          pay: { requires_confirmation_when: 'args.amount > 50000' },
          cancel: { requires_confirmation: false },
        },
      },
    });
    expect(overridden.status).toBe(200);
    const cancelled = await chat(t, admin, {
      agent_id: await createAgent('canceller-2', scripted([{ name: 'shop__cancel', args: { invoice: 'INV-9' } }])),
      message: 'cancel',
    });
    expect(cancelled.events.some((e) => e.event === 'confirmation_pending')).toBe(false);
    expect(callsOf('cancel')).toEqual([expect.objectContaining({ args: { invoice: 'INV-9' } })]);
  });

  it('tools/list_changed adds a tool without a restart', async () => {
    // The app is connected (earlier tests); the server gains a tool and notifies its sessions.
    shop.addTool('refund', 'Refund an invoice', 'refunded');
    await until('shop__refund listed', async () => {
      const res = await t.request('GET', `/api/mcp-servers/${serverId}`, { token: admin });
      return res.body.tools.some((x: any) => x.name === 'shop__refund');
    });
    const agent = await createAgent('refunder', scripted([{ name: 'shop__refund', args: {} }]));
    const res = await chat(t, admin, { agent_id: agent, message: 'refund' });
    expect(res.events.find((e) => e.event === 'observation')!.data).toMatchObject({
      tool: 'shop__refund',
      ok: true,
      content: 'refunded',
    });
    expect(callsOf('refund')).toHaveLength(1);
  });

  it('a PUT without headers keeps the sealed token; DELETE removes the tools; a private address is refused by the egress policy', async () => {
    const kept = await t.request('PUT', `/api/mcp-servers/${serverId}`, {
      token: admin,
      body: { name: 'shop', url: shop.url, tool_overrides: {} },
    });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ status: 'connected', header_keys: ['Authorization'] });
    expect(kept.body.tools.find((x: any) => x.name === 'shop__pay')).toMatchObject({
      requires_confirmation: true,
      requires_confirmation_when: null,
    });

    const internal = await t.request('POST', '/api/mcp-servers', {
      token: admin,
      body: { name: 'internal', url: 'http://10.255.255.1:8080/mcp' },
    });
    expect(internal.status).toBe(201);
    expect(internal.body).toMatchObject({ status: 'unreachable', tools: [] });
    expect(internal.body.error).toContain('egress refused');

    expect((await t.request('DELETE', `/api/mcp-servers/${serverId}`, { token: admin })).status).toBe(204);
    const agents = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name: 'gone', instructions: '', model_config_json: scripted([]) },
    });
    expect(agents.status).toBe(400);
    expect(JSON.stringify(agents.body)).toContain('shop__*');
  });
});
