import pg from 'pg';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { OA_ACTIONS, openChat } from './runtime-helpers.js';

const SLACK_TOKEN_1 = 'xoxb-first-SECRET-value';
const SLACK_TOKEN_2 = 'xoxb-second-SECRET-value';

/** #19: configuration audit (who changed what, secrets never recorded) and the verified, exportable audit trail. */
describe('audit trail: configuration changes, verification, exports (PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let admin: string;
  let adminUserId: string;
  let member: string;
  let connectorId: string;
  let agentId: string;
  let db: pg.Client;

  const get = async (path: string, token = admin) => {
    const res = await t.request('GET', path, { token });
    return res;
  };

  /** One chat paying 60 000: the gate waits, the admin approves, the connector is called. */
  async function gatedChat(po: string): Promise<string> {
    const run = openChat(t, admin, { agent_id: agentId, message: `pay ${po}` });
    const pending = (await run.next('confirmation_pending')).data;
    expect(
      (
        await t.request('POST', `/api/confirmations/${pending.confirmation_id}/decision`, {
          token: admin,
          body: { decision: 'approve' },
        })
      ).status,
    ).toBe(200);
    return (await run.finished)[0].data.run_id as string;
  }

  beforeAll(async () => {
    oa = await startHttpFake(() => ({ paid: true }));
    t = await startTestApp();
    admin = await t.token('alice', 'acme', ['admin']);
    member = await t.token('bob', 'acme', []);
    adminUserId = (await get('/api/me')).body.user_id;
    await get('/api/me', member);
    connectorId = (
      await t.request('POST', '/api/connectors', {
        token: admin,
        body: { name: 'oa', base_url: oa.url, headers: { 'X-Api-Key': 'oa-key-SECRET-1' }, actions: OA_ACTIONS },
      })
    ).body.id;
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'payer',
        model_config_json: {
          model: {
            provider: 'scripted',
            script: [
              { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-1', amount: 60_000 } }] },
              { content: 'paid' },
            ],
          },
          tools: ['oa__*'],
          hooks: { class_hooks: ['audit_log'] },
        },
      },
    });
    expect(res.status).toBe(201);
    agentId = res.body.id;
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
    await oa?.close();
  });

  it("changing an agent's hooks records the diff and the actor", async () => {
    const current = (await get(`/api/agents/${agentId}`)).body;
    const config = {
      ...current.model_config_json,
      hooks: { class_hooks: ['audit_log', { name: 'result_truncate', config: { max_chars: 100 } }] },
    };
    expect(
      (
        await t.request('PUT', `/api/agents/${agentId}`, {
          token: admin,
          body: { name: 'payer', model_config_json: config },
        })
      ).status,
    ).toBe(200);

    const page = await get(`/api/audit/config-events?entity_type=agent&entity_id=${agentId}`);
    expect(page.status).toBe(200);
    expect(page.body.items.map((e: any) => e.action)).toEqual(['agent.updated', 'agent.created']);
    const [updated] = page.body.items;
    expect(updated).toMatchObject({ kind: 'config', actor: adminUserId, entity_type: 'agent', entity_id: agentId });
    expect(updated.payload.changes).toEqual([
      {
        path: 'model_config_json.hooks.class_hooks',
        before: ['audit_log'],
        after: ['audit_log', { name: 'result_truncate', config: { max_chars: 100 } }],
      },
    ]);
    expect(updated.payload.before.model_config_json.hooks.class_hooks).toEqual(['audit_log']);
  });

  it('a channel secret change records that it changed, never the secret', async () => {
    const created = await t.request('POST', '/api/channels', {
      token: admin,
      body: {
        type: 'slack',
        name: 'ops',
        config: {
          bot_token: SLACK_TOKEN_1,
          signing_secret: 'signing-SECRET-value',
          channel: 'C-OPS',
          base_url: 'http://127.0.0.1:9/api/',
        },
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(
      (
        await t.request('PUT', `/api/channels/${id}`, {
          token: admin,
          body: { name: 'ops payments', config: { bot_token: SLACK_TOKEN_2 } },
        })
      ).status,
    ).toBe(200);

    const page = await get(`/api/audit/config-events?entity_type=channel&entity_id=${id}`);
    const [updated, made] = page.body.items;
    expect(made.action).toBe('channel.created');
    expect(updated).toMatchObject({ action: 'channel.updated', actor: adminUserId });
    expect(updated.payload.changes).toEqual([
      { path: 'name', before: 'ops', after: 'ops payments' },
      { path: 'secrets.bot_token', secret_changed: true },
    ]);
    const everything = (await get('/api/audit/events/export?format=jsonl')).text + page.text;
    for (const secret of [SLACK_TOKEN_1, SLACK_TOKEN_2, 'signing-SECRET-value', 'oa-key-SECRET-1'])
      expect(everything).not.toContain(secret);
  });

  it('connector header values are secrets too; the read-only switch and identity links are audited with their actor', async () => {
    const current = (await get(`/api/connectors/${connectorId}`)).body;
    const body = {
      name: 'oa',
      base_url: current.base_url,
      headers: { 'X-Api-Key': 'oa-key-SECRET-2' },
      actions: OA_ACTIONS,
    };
    expect((await t.request('PUT', `/api/connectors/${connectorId}`, { token: admin, body })).status).toBe(200);
    expect((await t.request('PUT', '/api/org/read-only', { token: admin, body: { read_only: true } })).status).toBe(
      200,
    );
    expect((await t.request('PUT', '/api/org/read-only', { token: admin, body: { read_only: false } })).status).toBe(
      200,
    );

    const conn = (await get(`/api/audit/config-events?entity_type=connector&entity_id=${connectorId}&limit=1`)).body
      .items[0];
    expect(conn.payload.changes).toEqual([{ path: 'secrets.headers.X-Api-Key', secret_changed: true }]);
    expect(JSON.stringify(conn)).not.toContain('oa-key-SECRET');
    expect(
      (await t.request('PUT', '/api/users/bob/identities', { token: admin, body: { slack_user_id: 'U-BOB' } })).status,
    ).toBe(200);
    const [link] = (await get('/api/audit/events?kind=identity')).body.items;
    expect(link).toMatchObject({
      action: 'identity.link',
      actor: adminUserId,
      payload: { platform: 'slack', external_id: 'U-BOB', method: 'admin' },
    });
    const org = (await get('/api/audit/config-events?entity_type=org')).body.items;
    expect(org.map((e: any) => [e.actor, e.payload.changes])).toEqual([
      [adminUserId, [{ path: 'read_only', before: true, after: false }]],
      [adminUserId, [{ path: 'read_only', before: false, after: true }]],
    ]);
  });

  it('a workflow change (its nodes carry approver policies) is audited with its diff', async () => {
    const definition = (node: Record<string, unknown>) => ({
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'pay', type: 'agent', agent_id: agentId, prompt: 'pay {{inputs.po}}', ...node },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { from: 'start', to: 'pay' },
        { from: 'pay', to: 'end' },
      ],
    });
    const made = await t.request('POST', '/api/workflows', {
      token: admin,
      body: { name: 'payments', definition: definition({}) },
    });
    expect(made.status).toBe(201);
    const changed = await t.request('PUT', `/api/workflows/${made.body.id}`, {
      token: admin,
      body: { definition: definition({ prompt: 'pay {{inputs.po}} now' }) },
    });
    expect(changed.status).toBe(200);
    const [updated] = (await get(`/api/audit/config-events?entity_type=workflow&entity_id=${made.body.id}`)).body.items;
    expect(updated).toMatchObject({ action: 'workflow.updated', actor: adminUserId });
    expect(updated.payload.changes).toEqual([
      { path: 'definition.nodes', before: expect.any(Array), after: expect.any(Array) },
    ]);
  });

  it('config events page by cursor; bad filters are 400s naming the problem; members get 403', async () => {
    const first = await get('/api/audit/config-events?limit=2');
    expect(first.body.items).toHaveLength(2);
    const second = await get(`/api/audit/config-events?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.items[0].seq).toBeLessThan(first.body.items[1].seq);
    for (const [path, problem] of [
      ['/api/audit/config-events?from=yesterday', 'from must be an ISO 8601'],
      ['/api/audit/config-events?cursor=%%%', 'cursor is not one this API returned'],
      ['/api/audit/verify?from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z', 'from must be before to'],
      ['/api/audit/connector-calls?outcome=maybe', 'outcome must be one of'],
      ['/api/audit/connector-calls/export?format=xml', 'format must be csv or jsonl'],
    ]) {
      const res = await get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(JSON.stringify(res.body.message)).toContain(problem);
    }
    for (const path of [
      '/api/audit/verify',
      '/api/audit/config-events',
      '/api/audit/events',
      '/api/audit/connector-calls/export',
    ]) {
      expect((await get(path, member)).status).toBe(403);
    }
  });

  it('a gated chat leaves a chain that verifies; a log row edited with SQL is found at its event', async () => {
    const runId = await gatedChat('PO-7');
    // The call's event lands with the audit writer's batch, shortly after the run ends.
    const events = await until('the call chained', async () => {
      const items = (await get('/api/audit/events?limit=500')).body.items;
      return items.some((e: any) => e.payload.run_id === runId && e.kind === 'connector_call') ? items : null;
    });
    const calls = (await get(`/api/audit/connector-calls?run_id=${runId}`)).body;
    expect(calls).toHaveLength(1);
    expect(events.map((e: any) => e.action)).toEqual(
      expect.arrayContaining([
        'connector_call.completed',
        'confirmation.approved',
        'confirmation.vote',
        'agent.created',
      ]),
    );
    const verified = (await get('/api/audit/verify')).body;
    expect(verified).toMatchObject({ valid: true, first_broken: null });
    expect(verified.rows).toBe(events.length);

    const callEvent = events.find((e: any) => e.action === 'connector_call.completed' && e.payload.run_id === runId);
    expect(callEvent.payload.log_id).toBe(calls[0].id);
    await db.query(`UPDATE connector_call_logs SET status = 500 WHERE id = $1`, [calls[0].id]);
    expect((await get('/api/audit/verify')).body).toMatchObject({
      valid: false,
      first_broken: {
        seq: callEvent.seq,
        reason: `connector_call_logs row ${calls[0].id} was changed after it was audited`,
      },
    });
    await db.query(`UPDATE connector_call_logs SET status = 200 WHERE id = $1`, [calls[0].id]);
    expect((await get('/api/audit/verify')).body.valid).toBe(true);
  });

  it('connector calls page by cursor and export as CSV and JSONL with the same rows', async () => {
    await gatedChat('PO-8');
    await gatedChat('PO-9');
    const all = await until('three calls audited', async () => {
      const rows = (await get('/api/audit/connector-calls')).body;
      return rows.length >= 3 && rows.every((r: any) => r.status === 200) ? rows : null;
    });
    const page1 = await get('/api/audit/connector-calls?limit=2');
    expect(page1.body).toHaveLength(2);
    const cursor = page1.headers.get('x-next-cursor');
    const page2 = await get(`/api/audit/connector-calls?limit=2&cursor=${cursor}`);
    expect([...page1.body, ...page2.body].map((r: any) => r.id)).toEqual(all.map((r: any) => r.id));
    expect(page2.headers.get('x-next-cursor')).toBeNull();

    const csv = await get('/api/audit/connector-calls/export?format=csv');
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0].split(',').slice(0, 3)).toEqual(['id', 'created_at', 'org_id']);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(all.map((r: any) => r.id).reverse());
    const byAccept = await t.request('GET', '/api/audit/connector-calls', {
      token: admin,
      headers: { accept: 'text/csv' },
    });
    expect(byAccept.headers.get('content-type')).toContain('text/csv');
    expect(byAccept.text).toBe(csv.text);
    const jsonl = await get('/api/audit/connector-calls?format=jsonl');
    expect(
      jsonl.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(all.map((r: any) => r.id).reverse());
    expect((await get('/api/audit/connector-calls/export?outcome=blocked')).text.trim().split('\r\n')).toHaveLength(1);
  });
});
