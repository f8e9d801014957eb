import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, OA_ACTIONS } from './runtime-helpers.js';

/**
 * Conversation history (the Portal's): a member lists their past conversations and reopens one with every run and its
 * events, then continues it; nobody else's conversation is visible, except to an admin of the org (read-only).
 */
describe('conversation history', () => {
  let t: TestApp;
  let oa: HttpFake;
  let admin: string;
  let mia: string;
  let ned: string;
  let agentId: string;

  beforeAll(async () => {
    oa = await startHttpFake((req) => ({ ok: true, path: req.path }));
    t = await startTestApp();
    admin = await t.token('ada', 'acme', ['admin']);
    mia = await t.token('mia', 'acme', []);
    ned = await t.token('ned', 'acme', []);
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: admin,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'clerk',
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
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
  });
  afterAll(async () => {
    await t?.close();
    await oa?.close();
  });

  it('lists my conversations newest first, reopens one with its runs and events exactly as streamed, and continues it', async () => {
    const first = await chat(t, mia, { agent_id: agentId, message: 'How is PO-1001?' });
    const conversationId = first.events[0].data.conversation_id;
    const second = await chat(t, mia, { agent_id: agentId, message: 'And again?', conversation_id: conversationId });
    expect(second.events.at(-1)!.data.status).toBe('completed');
    const other = await chat(t, mia, { agent_id: agentId, message: 'A new topic' });

    const list = await t.request('GET', `/api/conversations?agent_id=${agentId}`, { token: mia });
    expect(list.status).toBe(200);
    expect(list.body.map((c: any) => [c.title, c.run_count, c.last_status])).toEqual([
      ['A new topic', 1, 'completed'],
      ['How is PO-1001?', 2, 'completed'],
    ]);
    expect(list.body[1]).toMatchObject({ id: conversationId, agent_name: 'clerk', user_sub: 'mia' });

    const reopened = await t.request('GET', `/api/conversations/${conversationId}`, { token: mia });
    expect(reopened.status).toBe(200);
    expect(reopened.body.can_continue).toBe(true);
    expect(reopened.body.runs.map((r: any) => [r.message, r.answer, r.status])).toEqual([
      ['How is PO-1001?', 'PO-1001 is open.', 'completed'],
      ['And again?', 'PO-1001 is open.', 'completed'],
    ]);
    // The same events a live stream delivered, with the same ids (what a client resumes from with Last-Event-ID).
    expect(reopened.body.runs[0].events).toEqual(first.events.map((e) => ({ id: e.id, event: e.event, data: e.data })));
    expect(reopened.body.runs[0].events.find((e: any) => e.event === 'observation').data.content).toContain(
      '/purchases/PO-1001',
    );

    const third = await chat(t, mia, { agent_id: agentId, message: 'One more', conversation_id: conversationId });
    expect(third.events[0].data.conversation_id).toBe(conversationId);
    expect((await t.request('GET', `/api/conversations/${conversationId}`, { token: mia })).body.runs).toHaveLength(3);
    expect(other.events[0].data.conversation_id).not.toBe(conversationId);
  });

  it("a member never sees another member's conversations; an admin reads them (scope=org) but cannot continue them", async () => {
    const mine = await chat(t, mia, { agent_id: agentId, message: 'private question' });
    const id = mine.events[0].data.conversation_id;
    const nedList = await t.request('GET', '/api/conversations', { token: ned });
    expect(nedList.status).toBe(200);
    expect(nedList.body).toEqual([]);
    expect((await t.request('GET', `/api/conversations/${id}`, { token: ned })).status).toBe(404);
    const orgScope = await t.request('GET', '/api/conversations?scope=org', { token: ned });
    expect(orgScope.status).toBe(403);
    expect(orgScope.body.message).toMatch(/only admins/);

    expect((await t.request('GET', '/api/conversations', { token: admin })).body).toEqual([]);
    const all = await t.request('GET', '/api/conversations?scope=org', { token: admin });
    expect(all.body.map((c: any) => c.id)).toContain(id);
    const read = await t.request('GET', `/api/conversations/${id}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body.can_continue).toBe(false);
    expect((await chat(t, admin, { agent_id: agentId, message: 'x', conversation_id: id })).status).toBe(404);

    const other = await t.token('oz', 'globex', ['admin']);
    expect((await t.request('GET', `/api/conversations/${id}`, { token: other })).status).toBe(404);
    expect((await t.request('GET', '/api/conversations?scope=org', { token: other })).body).toEqual([]);
  });

  it('bad input is a 400 naming the problem', async () => {
    for (const [q, msg] of [
      ['agent_id=nope', /agent_id must be a UUID/],
      ['scope=all', /scope must be/],
      ['limit=0', /limit must be/],
    ] as const) {
      const res = await t.request('GET', `/api/conversations?${q}`, { token: mia });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.message)).toMatch(msg);
    }
    expect((await t.request('GET', '/api/conversations/not-a-uuid', { token: mia })).status).toBe(404);
  });
});
