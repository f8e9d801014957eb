import pg from 'pg';
import { AuditWriter } from '../../libs/hooks/src/builtin/index.js';
import { startFakeOpenAI, type ChatRequestBody, type FakeOpenAI, type FakeReply } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, OA_ACTIONS, RuntimeTestHooksModule } from './runtime-helpers.js';

/** Hooks as a user sees them through chat: prompts the model receives, trace and SSE, audit rows. */
describe('hooks through chat', () => {
  let t: TestApp;
  let llm: FakeOpenAI;
  let oa: HttpFake;
  let admin: string;
  let db: pg.Client;

  const scripted = (script: unknown[], extra: Record<string, unknown> = {}) => ({
    model: { provider: 'scripted', script },
    ...extra,
  });
  const createAgent = async (config: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name: `agent-${Date.now()}`, instructions: 'You are the buyer.', model_config_json: config },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const setReadOnly = (on: boolean) =>
    t.request('PUT', '/api/org/read-only', { token: admin, body: { read_only: on } });

  beforeAll(async () => {
    [llm, oa] = await Promise.all([
      startFakeOpenAI(() => ({ content: 'ok' })),
      startHttpFake((req) => (req.path === '/report' ? 'r'.repeat(20_000) : { ok: true, path: req.path })),
    ]);
    t = await startTestApp(
      { WARDEN_LLM_KEY_FAKE: 'sk-fake', LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}` },
      { imports: [RuntimeTestHooksModule] },
    );
    admin = await t.token('alice', 'acme', ['admin'], { name: 'Alice Admin' });
    const actions = [
      ...OA_ACTIONS,
      {
        name: 'report',
        method: 'GET',
        path: '/report',
        description: 'A long report',
        parameters: { type: 'object', properties: {} },
      },
    ];
    expect(
      (await t.request('POST', '/api/connectors', { token: admin, body: { name: 'oa', base_url: oa.url, actions } }))
        .status,
    ).toBe(201);
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
    await Promise.all([llm, oa].map((f) => f?.close()));
  });
  afterEach(async () => {
    await setReadOnly(false);
  });

  it('SessionStart context reaches the model: session_context adds who, when, the read-only notice and the admin text', async () => {
    await setReadOnly(true);
    llm.requests.length = 0;
    llm.setHandler(() => ({ content: 'noted' }));
    const agent = await createAgent({
      model: { provider: 'openai', base_url: llm.baseUrl, model: 'fake', api_key_env: 'WARDEN_LLM_KEY_FAKE' },
      hooks: { class_hooks: [{ name: 'session_context', config: { text: 'Quarter-end freeze: be careful.' } }] },
    });
    const res = await chat(t, admin, { agent_id: agent, message: 'hello' });
    expect(res.events.at(-1)!.data.status).toBe('completed');
    const system = llm.requests[0].messages.find((m) => m.role === 'system')!.content!;
    expect(system).toContain('You are the buyer.');
    expect(system).toContain('READ-ONLY mode');
    expect(system).toContain('Alice Admin');
    expect(system).toContain('Quarter-end freeze: be careful.');
    const hookEvent = res.events.find((e) => e.event === 'hook' && e.data.hook === 'session_context')!;
    expect(hookEvent.data).toMatchObject({ point: 'SessionStart', outcome: 'allow' });
  });

  it("every hook's side effects are in the SSE stream and in the run trace", async () => {
    const agent = await createAgent(
      scripted([{ tool_calls: [{ name: 'oa__list_purchases', args: {} }] }, { content: 'listed' }], {
        tools: ['oa__list_purchases'],
        hooks: { class_hooks: ['test_note'] },
      }),
    );
    const res = await chat(t, admin, { agent_id: agent, message: 'list' });
    const sse = res.events.find((e) => e.event === 'hook' && e.data.hook === 'test_note')!.data;
    expect(sse).toMatchObject({ point: 'PreToolUse', outcome: 'allow', side_effects: ['saw oa__list_purchases'] });
    expect(typeof sse.duration_ms).toBe('number');
    const run = await t.request('GET', `/api/runs/${res.events[0].data.run_id}`, { token: admin });
    expect(run.body.trace).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'hook', hook: 'test_note', side_effects: ['saw oa__list_purchases'] }),
      ]),
    );
  });

  it('an agent with all four built-ins: audit rows for executed and blocked calls, the long result cut for the model but kept whole', async () => {
    llm.requests.length = 0;
    let turn = 0;
    llm.setHandler((body: ChatRequestBody): FakeReply => {
      turn++;
      if (turn === 1)
        return {
          tool_calls: [
            { name: 'oa__report', args: {} },
            { name: 'oa__purchase_pay', args: { id: 'PO-1', amount: 10 } },
          ],
        };
      return { content: `saw ${body.messages.filter((m) => m.role === 'tool').length} observations` };
    });
    const agent = await createAgent({
      model: { provider: 'openai', base_url: llm.baseUrl, model: 'fake', api_key_env: 'WARDEN_LLM_KEY_FAKE' },
      tools: ['oa__*'],
      hooks: {
        class_hooks: [
          'audit_log',
          'read_only_guard',
          'result_truncate',
          { name: 'connector_rate_limit', config: { points: 10, duration_s: 60 } },
          'session_context',
        ],
      },
    });
    await setReadOnly(true);
    const res = await chat(t, admin, { agent_id: agent, message: 'report and pay' });
    const runId = res.events[0].data.run_id;
    const observations = res.events.filter((e) => e.event === 'observation').map((e) => e.data);
    const pay = observations.find((o) => o.tool === 'oa__purchase_pay')!;
    expect(pay).toMatchObject({ blocked: true, blocked_by: 'read_only_guard' });
    const toModel = llm.requests[1].messages.filter((m) => m.role === 'tool').map((m) => m.content!);
    const report = toModel.find((c) => c.startsWith('"rrr') || c.startsWith('rrr'))!;
    expect(report.length).toBeLessThan(8100);
    expect(report).toMatch(/…\[truncated: 2000\d chars, showing 8000\]$/);
    expect(
      toModel.some((c) => c.startsWith('Tool call blocked by read_only_guard: org acme is in read-only mode')),
    ).toBe(true);
    const { rows } = await db.query(
      `SELECT tool, full_result FROM tool_calls WHERE run_id = $1 AND tool = 'oa__report'`,
      [runId],
    );
    expect(rows[0].full_result.length).toBeGreaterThanOrEqual(20_000);

    const audit = await auditOf(runId);
    expect(audit).toHaveLength(2);
    const byAction = Object.fromEntries(audit.map((r: any) => [r.action, r]));
    expect(byAction.report).toMatchObject({
      method: 'GET',
      success: true,
      status: 200,
      blocked_by: null,
      surface: 'chat',
      connector: 'oa',
    });
    expect(byAction.purchase_pay).toMatchObject({ method: 'POST', success: false, blocked_by: 'read_only_guard' });
    expect(byAction.purchase_pay.args_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(oa.requests.filter((r) => r.path.startsWith('/purchases/PO-1'))).toHaveLength(0);
  });

  /** The run's audit rows once the writer has written what it buffered (a barrier, not a wait). */
  async function auditOf(runId: string): Promise<any[]> {
    await t.app.get(AuditWriter).flush();
    const res = await t.request('GET', `/api/audit/connector-calls?run_id=${runId}`, { token: admin });
    expect(res.status).toBe(200);
    return res.body;
  }
});
