import {
  startFakeOpenAI,
  lastMessage,
  type FakeOpenAI,
  type FakeReply,
  type ChatRequestBody,
} from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, OA_ACTIONS, parseSse, RuntimeTestHooksModule } from './runtime-helpers.js';

describe('agent runtime (chat over SSE, hooks, DAG, runs)', () => {
  let t: TestApp;
  let llm: FakeOpenAI;
  let oa: HttpFake;
  let admin: string;

  const model = (extra: Record<string, unknown> = {}) => ({
    model: { provider: 'openai', base_url: llm.baseUrl, model: 'fake-1', api_key_env: 'WARDEN_LLM_KEY_FAKE', ...extra },
  });
  const createAgent = async (config: Record<string, unknown>, token = admin) => {
    const res = await t.request('POST', '/api/agents', {
      token,
      body: { name: 'buyer', instructions: 'You pay purchase orders.', model_config_json: config },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  /** Replies from a list, in order. */
  const script =
    (...replies: FakeReply[]) =>
    (_: ChatRequestBody, i: number) =>
      replies[i] ?? { content: 'out of script' };

  beforeAll(async () => {
    llm = await startFakeOpenAI(() => ({ content: 'hello' }));
    oa = await startHttpFake((req) => ({ ok: true, path: req.path, body: req.body }));
    t = await startTestApp(
      {
        LLM_TIMEOUT_MS: '1500',
        WARDEN_LLM_KEY_FAKE: 'sk-fake',
        LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}`,
      },
      { imports: [RuntimeTestHooksModule] },
    );
    admin = await t.token('alice', 'acme', ['admin']);
    const res = await t.request('POST', '/api/connectors', {
      token: admin,
      body: { name: 'oa', base_url: oa.url, headers: { 'X-Api-Key': 'secret-key' }, actions: OA_ACTIONS },
    });
    expect(res.status).toBe(201);
    expect(res.body.tools).toEqual(['oa__list_purchases', 'oa__get_purchase', 'oa__purchase_pay']);
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await oa?.close();
  });
  beforeEach(() => {
    llm.requests.length = 0;
    oa.requests.length = 0;
    oa.setHandler((req) => ({ ok: true, path: req.path, body: req.body }));
  });

  it('1. a chat that pays shows run, tool_call, hook, observation, answer, done in order; the connector got one request', async () => {
    const agentId = await createAgent({ ...model(), tools: ['oa__*'] });
    llm.setHandler(
      script(
        { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-1001', amount: 1200 } }] },
        { content: 'Paid PO-1001.' },
      ),
    );
    const res = await chat(t, admin, { agent_id: agentId, message: 'Pay PO-1001' });
    expect(res.status).toBe(200);
    const types = res.events.map((e) => e.event);
    expect(types[0]).toBe('run');
    expect(types[types.length - 1]).toBe('done');
    const order = ['run', 'tool_call', 'hook', 'observation', 'answer', 'done'].map((type) => types.indexOf(type));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(res.events.map((e) => e.id)).toEqual(res.events.map((_, i) => i + 1));
    const call = res.events.find((e) => e.event === 'tool_call')!.data;
    expect(call).toMatchObject({ tool: 'oa__purchase_pay', args: { id: 'PO-1001', amount: 1200 } });
    expect(res.events.at(-1)!.data).toMatchObject({ status: 'completed', run_id: res.events[0].data.run_id });
    expect(res.events.find((e) => e.event === 'answer')!.data.content).toBe('Paid PO-1001.');
    // The streamed model's text also arrived as it was generated, before the full answer.
    const deltas = res.events.filter((e) => e.event === 'answer_delta');
    expect(deltas.map((e) => e.data.content).join('')).toBe('Paid PO-1001.');
    expect(deltas.every((e) => e.id < res.events.find((x) => x.event === 'answer')!.id)).toBe(true);

    expect(oa.requests).toHaveLength(1);
    const [req] = oa.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/purchases/PO-1001/pay');
    expect(req.body).toEqual({ amount: 1200 });
    expect(req.headers['idempotency-key']).toBe(call.call_id);
    expect(req.headers['x-api-key']).toBe('secret-key');

    // The model saw the tool and then the observation.
    expect(llm.requests[0].tools!.map((x) => x.function.name)).toContain('oa__purchase_pay');
    expect(llm.requests[1].messages.find((m) => m.role === 'tool')!.content).toContain('/purchases/PO-1001/pay');

    const run = await t.request('GET', `/api/runs/${res.events[0].data.run_id}`, { token: admin });
    expect(run.body).toMatchObject({
      status: 'completed',
      surface: 'chat',
      agent_id: agentId,
      answer: 'Paid PO-1001.',
      parent_run_id: null,
    });
    expect(run.body.trace.map((e: any) => e.type)).toEqual(
      expect.arrayContaining(['tool_call', 'hook', 'observation']),
    );
  });

  it('2a. a PreToolUse hook that rewrites args: the connector and the observation see the rewritten args', async () => {
    const agentId = await createAgent({
      ...model({ stream: false }),
      tools: ['oa__purchase_pay'],
      hooks: {
        class_hooks: [{ name: 'test_rewrite_args', config: { tool: 'oa__purchase_pay', set: { amount: 10 } } }],
      },
    });
    llm.setHandler(
      script({ tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-7', amount: 999 } }] }, { content: 'done' }),
    );
    const res = await chat(t, admin, { agent_id: agentId, message: 'pay' });
    expect(oa.requests.map((r) => r.body)).toEqual([{ amount: 10 }]);
    const observation = res.events.find((e) => e.event === 'observation')!.data;
    expect(observation).toMatchObject({ args: { id: 'PO-7', amount: 10 }, blocked: false });
    expect(res.events.find((e) => e.event === 'tool_call')!.data.args).toEqual({ id: 'PO-7', amount: 999 });
    expect(res.events.find((e) => e.event === 'hook' && e.data.hook === 'test_rewrite_args')!.data.outcome).toBe(
      'rewrite',
    );
  });

  it('2b. a blocking hook: the connector receives nothing and the next prompt says "Tool call blocked by <hook>"', async () => {
    const agentId = await createAgent({
      ...model(),
      tools: ['oa__*'],
      hooks: { class_hooks: [{ name: 'test_block_tool', config: { tool: 'oa__purchase_pay' } }] },
    });
    llm.setHandler(
      script(
        { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-7', amount: 5 } }] },
        { content: 'could not pay' },
      ),
    );
    const res = await chat(t, admin, { agent_id: agentId, message: 'pay' });
    expect(oa.requests).toHaveLength(0);
    expect(res.events.find((e) => e.event === 'observation')!.data).toMatchObject({
      blocked: true,
      blocked_by: 'test_block_tool',
    });
    const toolMessage = llm.requests[1].messages.find((m) => m.role === 'tool')!;
    expect(toolMessage.content).toBe('Tool call blocked by test_block_tool: oa__purchase_pay is not allowed in tests');
    expect(res.events.at(-1)!.data.status).toBe('completed');
  });

  it('3. two parallel tool calls in one turn each pass through hooks: one blocked, one executed', async () => {
    const agentId = await createAgent({
      ...model(),
      tools: ['oa__*'],
      hooks: { class_hooks: ['test_note', { name: 'test_block_tool', config: { tool: 'oa__purchase_pay' } }] },
    });
    llm.setHandler(
      script(
        {
          tool_calls: [
            { name: 'oa__get_purchase', args: { id: 'PO-1' } },
            { name: 'oa__purchase_pay', args: { id: 'PO-1', amount: 3 } },
          ],
        },
        { content: 'one of two' },
      ),
    );
    const res = await chat(t, admin, { agent_id: agentId, message: 'look and pay' });
    expect(oa.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /purchases/PO-1']);
    const calls = res.events.filter((e) => e.event === 'tool_call').map((e) => e.data.call_id);
    expect(calls).toHaveLength(2);
    const hookCalls = new Set(
      res.events.filter((e) => e.event === 'hook' && e.data.point === 'PreToolUse').map((e) => e.data.call_id),
    );
    expect(hookCalls).toEqual(new Set(calls));
    const notes = res.events.filter((e) => e.event === 'hook' && e.data.hook === 'test_note');
    expect(notes.map((e) => e.data.call_id).sort()).toEqual([...calls].sort());
    const observations = res.events.filter((e) => e.event === 'observation').map((e) => [e.data.tool, e.data.blocked]);
    expect(observations).toEqual(
      expect.arrayContaining([
        ['oa__get_purchase', false],
        ['oa__purchase_pay', true],
      ]),
    );
    const tools = llm.requests[1].messages.filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(2);
  });

  it('4. DAG: two independent steps run concurrently, the dependent one after, hooks fire on every step', async () => {
    const agentId = await createAgent({
      ...model(),
      tools: ['oa__*'],
      hooks: {
        class_hooks: [{ name: 'test_rewrite_args', config: { tool: 'oa__get_purchase', set: { trace: 'dag' } } }],
      },
    });
    // A barrier at the connector: PO-A and PO-B are answered only once both are in, which only concurrent steps can
    // do (a watchdog lets a lone one through after 10 s, and the test then fails on `overlapped`). The log gives
    // the order: PO-C (the dependent step) must come in after both were answered.
    const log: string[] = [];
    let overlapped = false;
    let releasePair!: () => void;
    const pair = new Promise<void>((resolve) => (releasePair = resolve));
    oa.setHandler(async (req) => {
      const id = req.path.split('/').pop()!;
      log.push(`${id} in`);
      if (id !== 'PO-C') {
        // Both in, neither answered yet.
        if (log.includes('PO-A in') && log.includes('PO-B in') && !log.some((l) => l.endsWith(' out'))) {
          overlapped = true;
          releasePair();
        } else setTimeout(releasePair, 10_000).unref();
        await pair;
      }
      log.push(`${id} out`);
      return { id };
    });
    llm.setHandler((body) => {
      const system = body.messages.map((m) => m.content).join('\n');
      const last = lastMessage(body, 'user');
      const hasTool = body.messages.some((m) => m.role === 'tool');
      if (system.includes('Plan the work')) {
        return {
          content: JSON.stringify({
            steps: [
              { id: 'a', task: 'Fetch PO-A', depends_on: [] },
              { id: 'b', task: 'Fetch PO-B', depends_on: [] },
              { id: 'c', task: 'Compare', depends_on: ['a', 'b'] },
            ],
          }),
        };
      }
      if (last.includes('steps are done')) return { content: 'Synthesis: A and B compared.' };
      const match = /^Fetch (PO-\w)/.exec(last);
      if (match && !hasTool) return { tool_calls: [{ name: 'oa__get_purchase', args: { id: match[1] } }] };
      if (last.startsWith('Compare') && !hasTool)
        return { tool_calls: [{ name: 'oa__get_purchase', args: { id: 'PO-C' } }] };
      return { content: `step done` };
    });
    const res = await chat(t, admin, { agent_id: agentId, message: 'Compare PO-A and PO-B', mode: 'dag' });
    const runId = res.events[0].data.run_id;
    expect(res.events.at(-1)!.data).toMatchObject({ run_id: runId, status: 'completed' });
    // Step events are nested in the stream, marked with the step's run id; the run's own answer is the synthesis.
    const answers = res.events.filter((e) => e.event === 'answer');
    expect(answers.filter((e) => e.data.run_id !== runId)).toHaveLength(3);
    expect(answers.filter((e) => e.data.run_id === runId).map((e) => e.data.content)).toEqual([
      'Synthesis: A and B compared.',
    ]);
    const byId = Object.fromEntries(oa.requests.map((r) => [r.path, r]));
    expect(Object.keys(byId).sort()).toEqual(['/purchases/PO-A', '/purchases/PO-B', '/purchases/PO-C']);
    // a and b were at the connector at the same time; c came in after both were answered.
    expect(overlapped).toBe(true);
    expect(log.indexOf('PO-C in')).toBeGreaterThan(Math.max(log.indexOf('PO-A out'), log.indexOf('PO-B out')));
    // the rewrite hook fired on every step (its rewrite reached the connector as a query parameter)
    expect(oa.requests.every((r) => r.query.get('trace') === 'dag')).toBe(true);
    const stepHooks = res.events.filter((e) => e.event === 'hook' && e.data.hook === 'test_rewrite_args');
    expect(new Set(stepHooks.map((e) => e.data.run_id)).size).toBe(3);
    expect(stepHooks.every((e) => e.data.surface === 'dag' && String(e.data.parent_call_id).startsWith('step:'))).toBe(
      true,
    );
    const childId = stepHooks[0].data.run_id;
    const child = await t.request('GET', `/api/runs/${childId}`, { token: admin });
    expect(child.body).toMatchObject({ surface: 'dag', parent_run_id: res.events[0].data.run_id, status: 'completed' });
  });

  it('4b. DAG: a cyclic plan is told to the model once, then the run fails', async () => {
    const agentId = await createAgent({ ...model(), tools: ['oa__*'] });
    const cyclic = JSON.stringify({
      steps: [
        { id: 'a', task: 'A', depends_on: ['b'] },
        { id: 'b', task: 'B', depends_on: ['a'] },
      ],
    });
    llm.setHandler(() => ({ content: cyclic }));
    const res = await chat(t, admin, { agent_id: agentId, message: 'x', mode: 'dag' });
    expect(llm.requests).toHaveLength(2);
    expect(lastMessage(llm.requests[1], 'user')).toMatch(/cycle: a -> b -> a/);
    expect(res.events.at(-1)!.data.status).toBe('failed');
    expect(res.events.find((e) => e.event === 'error')!.data.message).toMatch(/plan is invalid.*cycle/);
  });

  it('5. GET /api/runs/:id/events with Last-Event-ID: 3 replays from event 4; another org gets 404', async () => {
    const agentId = await createAgent({ ...model(), tools: ['oa__*'] });
    llm.setHandler(
      script({ tool_calls: [{ name: 'oa__list_purchases', args: { status: 'open' } }] }, { content: 'listed' }),
    );
    const res = await chat(t, admin, { agent_id: agentId, message: 'list' });
    const runId = res.events[0].data.run_id;
    expect(oa.requests[0].query.get('status')).toBe('open');
    const replay = await fetch(`${t.url}/api/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${admin}`, 'last-event-id': '3' },
    });
    expect(replay.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(await replay.text()).events;
    expect(events[0].id).toBe(4);
    expect(events).toEqual(res.events.slice(3));

    const other = await t.token('mallory', 'evil-corp', ['admin']);
    expect((await t.request('GET', `/api/runs/${runId}/events`, { token: other })).status).toBe(404);
    expect((await t.request('GET', `/api/runs/${runId}`, { token: other })).status).toBe(404);
    expect((await t.request('POST', `/api/runs/${runId}/cancel`, { token: other })).status).toBe(404);
  });

  it.each([
    [
      'malformed tool-call JSON',
      { tool_calls: [{ name: 'oa__purchase_pay', arguments: '{"id": "PO-1", amount: ' }] },
      /malformed JSON arguments for tool "oa__purchase_pay"/,
    ],
    ['an HTTP 500', { status: 500 }, /HTTP 500/],
    ['a hanging response', { hang: true }, /did not answer within 1500 ms/],
  ])(
    '6. the model server returning %s: done failed, a clear error, nothing left running',
    async (_, reply, message) => {
      const agentId = await createAgent({ ...model(), tools: ['oa__*'] });
      llm.setHandler(() => reply);
      const res = await chat(t, admin, { agent_id: agentId, message: 'pay' });
      expect(res.events[0].event).toBe('run');
      expect(res.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
      expect(res.events.find((e) => e.event === 'error')!.data.message).toMatch(message);
      expect(oa.requests).toHaveLength(0);
      const run = await t.request('GET', `/api/runs/${res.events[0].data.run_id}`, { token: admin });
      expect(run.body.status).toBe('failed');
      const { Client } = await import('pg');
      const db = new Client({ connectionString: t.databaseUrl });
      await db.connect();
      try {
        const { rows } = await db.query(
          `SELECT count(*)::int AS n FROM agent_runs WHERE status IN ('running', 'waiting')`,
        );
        expect(rows[0].n).toBe(0);
      } finally {
        await db.end();
      }
    },
  );
});
