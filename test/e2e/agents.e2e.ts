import { RunEventsService } from '@warden/agents';
import pg from 'pg';
import { DemoSeeder } from '../../apps/api/src/demo/demo-seeder.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, OA_ACTIONS, parseSse } from './runtime-helpers.js';

describe('connectors and agents admin API, scripted model, conversations, cancel, refusal', () => {
  let t: TestApp;
  let llm: FakeOpenAI;
  let oa: HttpFake;
  let admin: string;
  let member: string;
  const openai = () => ({ provider: 'openai', base_url: llm.baseUrl, model: 'fake-1' });

  beforeAll(async () => {
    llm = await startFakeOpenAI(() => ({ content: 'hello' }));
    oa = await startHttpFake((req) => ({ ok: true, path: req.path }));
    t = await startTestApp({ LLM_TIMEOUT_MS: '20000' });
    admin = await t.token('ada', 'acme', ['admin']);
    member = await t.token('bob', 'acme', []);
    const res = await t.request('POST', '/api/connectors', {
      token: admin,
      body: { name: 'oa', base_url: oa.url, headers: { 'X-Api-Key': 'top-secret' }, actions: OA_ACTIONS },
    });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await oa?.close();
  });

  describe('connectors', () => {
    it('never returns header values, only their names; tool names are normalised', async () => {
      const created = await t.request('POST', '/api/connectors', {
        token: admin,
        body: {
          name: 'My-CRM',
          base_url: 'http://crm.internal/',
          headers: { Authorization: 'Bearer abc' },
          actions: [{ name: 'Find-Lead', method: 'get', path: '/leads' }],
        },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'My-CRM',
        tools: ['my_crm__find_lead'],
        header_keys: ['Authorization'],
      });
      expect(created.body.actions[0]).toMatchObject({ method: 'GET', write: false });
      const list = await t.request('GET', '/api/connectors', { token: admin });
      expect(list.text).not.toContain('Bearer abc');
      expect(list.text).not.toContain('top-secret');
      // PUT without headers keeps the stored ones
      const put = await t.request('PUT', `/api/connectors/${created.body.id}`, {
        token: admin,
        body: {
          name: 'My-CRM',
          base_url: 'http://crm.internal',
          actions: [{ name: 'add_lead', method: 'POST', path: '/leads' }],
        },
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({
        tools: ['my_crm__add_lead'],
        header_keys: ['Authorization'],
        actions: [{ write: true }],
      });
      expect((await t.request('DELETE', `/api/connectors/${created.body.id}`, { token: admin })).status).toBe(204);
      expect((await t.request('GET', `/api/connectors/${created.body.id}`, { token: admin })).status).toBe(404);
    });

    it('a bad CEL condition, method, path or schema is a 400 naming the action; nothing is saved', async () => {
      const res = await t.request('POST', '/api/connectors', {
        token: admin,
        body: {
          name: 'erp',
          base_url: 'http://erp.internal',
          actions: [
            {
              name: 'pay',
              method: 'POST',
              path: '/pay/{id}',
              parameters: { type: 'object', properties: { id: { type: 'string' } } },
              requires_confirmation_when: 'args.amount > > 5',
            },
            { name: 'fetch', method: 'FETCH', path: 'no-slash', parameters: { type: 'array' } },
          ],
        },
      });
      expect(res.status).toBe(400);
      expect(res.body.problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^action "pay": requires_confirmation_when "args.amount > > 5" is not a valid CEL condition/,
          ),
          expect.stringMatching(/^action "fetch": method "FETCH"/),
          expect.stringMatching(/^action "fetch": parameters.type must be "object"/),
          expect.stringMatching(/^action "fetch": path "no-slash"/),
        ]),
      );
      const list = await t.request('GET', '/api/connectors', { token: admin });
      expect(list.body.map((c: { name: string }) => c.name)).not.toContain('erp');
    });

    it('is admin-only and org-scoped', async () => {
      expect((await t.request('GET', '/api/connectors', { token: member })).status).toBe(403);
      const list = await t.request('GET', '/api/connectors', { token: admin });
      const other = await t.token('eve', 'other-org', ['admin']);
      expect((await t.request('GET', `/api/connectors/${list.body[0].id}`, { token: other })).status).toBe(404);
      expect((await t.request('GET', '/api/connectors', { token: other })).body).toEqual([]);
    });
  });

  describe('agents', () => {
    it('unknown tools, delegates and hooks are a 400 naming each; nothing is saved', async () => {
      const res = await t.request('POST', '/api/agents', {
        token: admin,
        body: {
          name: 'broken',
          model_config_json: {
            model: openai(),
            tools: ['oa__*', 'crm__*', 'no_such_tool'],
            delegates: ['00000000-0000-4000-8000-000000000000'],
            hooks: { class_hooks: ['no_such_hook'] },
            confirmation: { forbid_self_approval: true },
          },
        },
      });
      expect(res.status).toBe(400);
      const problems = res.body.problems.join('\n');
      expect(problems).toMatch(/forbid_self_approval cannot be combined with approver_scope "initiator"/);
      expect(problems).toMatch(/unknown tool "crm__\*"/);
      expect(problems).toMatch(/unknown tool "no_such_tool"/);
      expect(problems).not.toMatch(/"oa__\*"/);
      expect(problems).toMatch(/unknown delegate "00000000-0000-4000-8000-000000000000"/);
      expect(problems).toMatch(/no_such_hook/);
      expect(
        (await t.request('GET', '/api/agents', { token: admin })).body.map((a: { name: string }) => a.name),
      ).not.toContain('broken');
    });

    it('members read agents but cannot write them; other orgs get 404', async () => {
      const created = await t.request('POST', '/api/agents', {
        token: admin,
        body: { name: 'reader', model_config_json: { model: openai(), tools: [] } },
      });
      expect(created.status).toBe(201);
      expect((await t.request('GET', `/api/agents/${created.body.id}`, { token: member })).status).toBe(200);
      expect(
        (
          await t.request('POST', '/api/agents', {
            token: member,
            body: { name: 'x', model_config_json: { model: openai() } },
          })
        ).status,
      ).toBe(403);
      const other = await t.token('eve', 'other-org', ['admin']);
      expect((await t.request('GET', `/api/agents/${created.body.id}`, { token: other })).status).toBe(404);
      expect((await chat(t, other, { agent_id: created.body.id, message: 'hi' })).status).toBe(404);
    });
  });

  it('a scripted agent plays its turns; a conversation keeps its history; surface api is recorded', async () => {
    const created = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'scripted',
        model_config_json: {
          model: {
            provider: 'scripted',
            script: [
              { tool_calls: [{ name: 'oa__get_purchase', args: { id: 'PO-1001' } }] },
              { content: 'PO-1001 is open.' },
            ],
          },
          tools: ['oa__get_purchase'],
        },
      },
    });
    expect(created.status).toBe(201);
    oa.requests.length = 0;
    const res = await chat(t, member, { agent_id: created.body.id, message: 'How is PO-1001?', surface: 'api' });
    expect(res.events.at(-1)!.data.status).toBe('completed');
    expect(res.events[0].data).toMatchObject({ surface: 'api' });
    expect(oa.requests.map((r) => r.path)).toEqual(['/purchases/PO-1001']);

    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name: 'talker', model_config_json: { model: openai() } },
    });
    llm.setHandler((_, i) => ({ content: `answer ${i}` }));
    llm.requests.length = 0;
    const first = await chat(t, member, { agent_id: agent.body.id, message: 'my name is Bob' });
    const conversationId = first.events[0].data.conversation_id;
    await chat(t, member, { agent_id: agent.body.id, message: 'what is my name?', conversation_id: conversationId });
    expect(llm.requests[1].messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 'You are a helpful assistant.'],
      ['user', 'my name is Bob'],
      ['assistant', 'answer 0'],
      ['user', 'what is my name?'],
    ]);
    // someone else's conversation is not found
    expect(
      (await chat(t, admin, { agent_id: agent.body.id, message: 'x', conversation_id: conversationId })).status,
    ).toBe(404);
  });

  it('a run whose hooks cannot be built is a plain 422 and recorded as refused', async () => {
    const created = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name: 'soon-broken', model_config_json: { model: openai() } },
    });
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      await db.query(
        `UPDATE agents SET model_config_json = model_config_json || '{"hooks":{"class_hooks":["vanished_hook"]}}' WHERE id = $1`,
        [created.body.id],
      );
      const res = await chat(t, admin, { agent_id: created.body.id, message: 'hi' });
      expect(res.status).toBe(422);
      expect(res.body.message).toMatch(/vanished_hook/);
      const { rows } = await db.query(`SELECT status, error FROM agent_runs WHERE agent_id = $1`, [created.body.id]);
      expect(rows).toEqual([{ status: 'refused', error: expect.stringMatching(/vanished_hook/) }]);
    } finally {
      await db.end();
    }
  });

  it("cancel: only the run's user or an admin; the stream ends with done cancelled; a client disconnect does not cancel", async () => {
    const created = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name: 'slow', model_config_json: { model: openai() } },
    });
    llm.setHandler(() => ({ hang: true }));
    const carol = await t.token('carol', 'acme', []);
    const streams = t.app.get(RunEventsService);
    const followersBefore = streams.followers;
    const abort = new AbortController();
    const res = await fetch(`${t.url}/api/chat`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer ${carol}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: created.body.id, message: 'take your time' }),
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const runId = parseSse(first).events[0].data.run_id;
    abort.abort(); // the client goes away; the run keeps going
    // The server has handled the disconnect once it stopped following the run's events.
    await until('the server drops the stream', () => streams.followers === followersBefore);
    expect((await t.request('GET', `/api/runs/${runId}`, { token: carol })).body.status).toBe('running');

    // Another member does not even see the run (run privacy), so cancelling it is "not found".
    expect((await t.request('POST', `/api/runs/${runId}/cancel`, { token: member })).status).toBe(404);
    const cancelled = await t.request('POST', `/api/runs/${runId}/cancel`, { token: carol });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const replay = parseSse(
      await (
        await fetch(`${t.url}/api/runs/${runId}/events`, { headers: { authorization: `Bearer ${carol}` } })
      ).text(),
    ).events;
    expect(replay.at(-1)).toMatchObject({ event: 'done', data: { status: 'cancelled' } });
    expect(replay.filter((e) => e.event === 'done')).toHaveLength(1);
    expect((await t.request('POST', `/api/runs/${runId}/cancel`, { token: carol })).status).toBe(409);
  });

  it('the demo seed is idempotent: one oa connector with three tools, one scripted agent', async () => {
    const seeder = t.app.get(DemoSeeder);
    const a = await seeder.seed();
    const b = await seeder.seed();
    expect(b.agentId).toBe(a.agentId);
    const demoAdmin = await t.token('demo-admin', 'demo', ['admin']);
    const connectors = await t.request('GET', '/api/connectors', { token: demoAdmin });
    expect(connectors.body).toHaveLength(1);
    expect(connectors.body[0]).toMatchObject({
      name: 'oa',
      tools: ['oa__list_purchases', 'oa__get_purchase', 'oa__purchase_pay'],
    });
    expect(connectors.body[0].base_url).toMatch(/\/demo-oa$/);
    expect(connectors.body[0].actions[2].requires_confirmation_when).toBe('args.amount > 50000');
    expect((await t.request('GET', '/api/agents', { token: demoAdmin })).body).toHaveLength(1);
  });
});
