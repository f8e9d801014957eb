import { startFakeOpenAI, type ChatRequestBody, type FakeOpenAI, type FakeReply } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { sleep, until } from '../support/eventually.js';
import { chat, OA_ACTIONS, RuntimeTestHooksModule } from './runtime-helpers.js';

/**
 * Issue 6: hooks fire on every execution surface (chat, api, dag, delegate, workflow) and are bypassed, on the
 * record, on eval. The same agent everywhere: its pay action needs approval (amount > 50000) and it declares a
 * custom hook that blocks oa__get_purchase.
 */
describe('hooks on every surface', () => {
  let t: TestApp;
  let llm: FakeOpenAI;
  let oa: HttpFake;
  let admin: string;
  let payer: string;
  let approving = true;
  let approver: Promise<void>;
  let stopApprover = false;

  /** The payer's model: plan (DAG), then one turn of two calls (pay 60000 + a blocked read), then a final answer. */
  const payerModel = (body: ChatRequestBody): FakeReply => {
    const text = body.messages.map((m) => m.content ?? '').join('\n');
    if (!body.tools?.length && text.includes('Reply with JSON only'))
      return { content: JSON.stringify({ steps: [{ id: 's1', task: 'pay PO-9', depends_on: [] }] }) };
    if (!body.tools?.length) return { content: 'synthesized: paid' };
    if (body.messages.at(-1)?.role === 'tool') return { content: 'paid PO-9' };
    return {
      tool_calls: [
        { name: 'oa__purchase_pay', args: { id: 'PO-9', amount: 60000 } },
        { name: 'oa__get_purchase', args: { id: 'PO-9' } },
      ],
    };
  };

  const createAgent = async (name: string, config: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name, instructions: 'You pay purchase orders.', model_config_json: config },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const scripted = (script: unknown[]) => ({ model: { provider: 'scripted', script } });
  const payerConfig = (extra: Record<string, unknown> = {}) => ({
    model: { provider: 'openai', base_url: llm.baseUrl, model: 'fake', api_key_env: 'WARDEN_LLM_KEY_FAKE' },
    tools: ['oa__*'],
    hooks: { class_hooks: [{ name: 'test_block_tool', config: { tool: 'oa__get_purchase' } }] },
    ...extra,
  });
  const pending = async () =>
    (await t.request('GET', '/api/confirmations?status=pending', { token: admin })).body as Array<{
      id: string;
      run_id: string;
      tool: string;
    }>;
  const allConfirmations = async () =>
    (await t.request('GET', '/api/confirmations', { token: admin })).body as Array<{
      id: string;
      run_id: string;
      tool: string;
      status: string;
    }>;
  const trace = async (runId: string) =>
    (await t.request('GET', `/api/runs/${runId}`, { token: admin })).body.trace as Array<Record<string, any>>;
  const waitFor = <T>(probe: () => Promise<T | undefined>) => until('the run', probe, 15_000, 100);

  beforeAll(async () => {
    llm = await startFakeOpenAI(payerModel);
    oa = await startHttpFake((req) => ({ ok: true, path: req.path }));
    t = await startTestApp(
      { WARDEN_LLM_KEY_FAKE: 'sk-fake', LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}` },
      { imports: [RuntimeTestHooksModule] },
    );
    admin = await t.token('alice', 'acme', ['admin']);
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: admin,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
    payer = await createAgent('payer', payerConfig());
    // A person on the inbox who approves whatever is pending while `approving` is on.
    approver = (async () => {
      while (!stopApprover) {
        if (approving)
          for (const c of await pending())
            await t.request('POST', `/api/confirmations/${c.id}/decision`, {
              token: admin,
              body: { decision: 'approve' },
            });
        await sleep(100);
      }
    })();
  });
  afterAll(async () => {
    stopApprover = true;
    await approver;
    await t?.close();
    await llm?.close();
    await oa?.close();
  });
  beforeEach(() => {
    oa.requests.length = 0;
    approving = true;
  });

  /** Runs the payer on one surface; returns the run ids whose traces hold the payer's tool calls. */
  const surfaces: Array<[string, () => Promise<{ runIds: string[]; evalResult?: any }>]> = [
    [
      'chat',
      async () => {
        const res = await chat(t, admin, { agent_id: payer, message: 'pay PO-9' });
        return { runIds: [res.events[0].data.run_id] };
      },
    ],
    [
      'api',
      async () => {
        const res = await chat(t, admin, { agent_id: payer, message: 'pay PO-9', surface: 'api' });
        expect(res.events[0].data.surface).toBe('api');
        return { runIds: [res.events[0].data.run_id] };
      },
    ],
    [
      'dag',
      async () => {
        const res = await chat(t, admin, { agent_id: payer, message: 'pay PO-9', mode: 'dag' });
        const step = res.events.find((e) => e.event === 'tool_call')!.data;
        expect(step.surface).toBe('dag');
        return { runIds: [res.events[0].data.run_id, step.run_id] };
      },
    ],
    [
      'delegate',
      async () => {
        const caller = await createAgent(`caller-${Date.now()}`, {
          ...scripted([
            { tool_calls: [{ name: 'call_agent', args: { agent_id: payer, task: 'pay PO-9' } }] },
            { content: 'delegated' },
          ]),
          tools: ['call_agent'],
          delegates: [payer],
        });
        const res = await chat(t, admin, { agent_id: caller, message: 'get PO-9 paid' });
        const nested = res.events.find((e) => e.event === 'tool_call' && e.data.tool === 'oa__purchase_pay')!.data;
        expect(nested.surface).toBe('delegate');
        expect(nested.parent_call_id).toBe(
          res.events.find((e) => e.event === 'tool_call' && e.data.tool === 'call_agent')!.data.call_id,
        );
        expect(res.events.find((e) => e.event === 'observation' && e.data.tool === 'call_agent')!.data.content).toBe(
          'paid PO-9',
        );
        return { runIds: [res.events[0].data.run_id, nested.run_id] };
      },
    ],
    [
      'workflow',
      async () => {
        const wf = await t.request('POST', '/api/workflows', {
          token: admin,
          body: {
            name: `pay-${Date.now()}`,
            definition: {
              nodes: [
                { id: 'start', type: 'start' },
                { id: 'pay', type: 'agent', agent_id: payer, prompt: 'pay {{inputs.po}}' },
                { id: 'end', type: 'end' },
              ],
              edges: [
                { from: 'start', to: 'pay' },
                { from: 'pay', to: 'end' },
              ],
            },
          },
        });
        expect(wf.status).toBe(201);
        const started = await t.request('POST', `/api/workflows/${wf.body.id}/runs`, {
          token: admin,
          body: { inputs: { po: 'PO-9' } },
        });
        expect(started.status).toBe(202);
        const run = await waitFor(async () => {
          const r = await t.request('GET', `/api/workflow-runs/${started.body.run_id}`, { token: admin });
          return ['completed', 'failed'].includes(r.body.status) ? r.body : undefined;
        });
        // The custom hook blocked the read, so the node fails with that reason shown.
        expect(run.nodes.pay).toMatchObject({
          status: 'failed',
          error: expect.stringContaining('Tool call blocked by test_block_tool'),
        });
        return { runIds: [run.nodes.pay.agent_run_id] };
      },
    ],
    [
      'eval',
      async () => {
        const created = await t.request('POST', '/api/evals', {
          token: admin,
          body: { agent_id: payer, cases: [{ input: 'pay PO-9', expect_contains: 'paid' }] },
        });
        expect(created.status).toBe(202);
        const result = await waitFor(async () => {
          const r = await t.request('GET', `/api/evals/${created.body.id}`, { token: admin });
          return r.body.status === 'running' ? undefined : r.body;
        });
        return { runIds: [result.results[0].run_id], evalResult: result };
      },
    ],
  ];

  it.each(surfaces)('%s', async (surface, runIt) => {
    const before = (await allConfirmations()).length;
    const { runIds, evalResult } = await runIt();
    const runTraces = (await Promise.all(runIds.map(trace))).flat();
    const run = (await t.request('GET', `/api/runs/${runIds.at(-1)}`, { token: admin })).body;
    const created = (await allConfirmations()).slice(0, (await allConfirmations()).length - before);
    const blockHook = runTraces.find((e) => e.type === 'hook' && e.hook === 'test_block_tool');
    const pays = oa.requests.filter((r) => r.path === '/purchases/PO-9/pay');
    const reads = oa.requests.filter((r) => r.path === '/purchases/PO-9');
    if (surface === 'eval') {
      expect(evalResult).toMatchObject({ status: 'completed', hooks: 'bypassed' });
      expect(evalResult.results[0]).toMatchObject({ passed: true, output: 'paid PO-9' });
      expect(run).toMatchObject({ surface: 'eval', hooks: 'bypassed' });
      expect(created).toHaveLength(0); // no gate, no card
      expect(blockHook).toBeUndefined(); // no policy hook ran: only the audit log keeps running
      expect(runTraces.filter((e) => e.type === 'hook').map((e) => e.hook)).toEqual(
        expect.arrayContaining(['audit_log']),
      );
      expect(runTraces.some((e) => e.type === 'hook' && e.hook !== 'audit_log')).toBe(false);
      expect(reads).toHaveLength(1); // the read the hook would block ran
      expect(pays).toHaveLength(0); // the write was simulated, never sent
      expect(
        evalResult.results[0].tool_calls.find((c: { tool: string }) => c.tool === 'oa__purchase_pay'),
      ).toMatchObject({
        simulated: true,
      });
      return;
    } else {
      expect(run.surface).toBe(surface === 'api' ? 'api' : surface === 'chat' ? 'chat' : surface);
      expect(created).toHaveLength(1); // the approval card (inbox) for the 60000 payment
      expect(created[0]).toMatchObject({ tool: 'oa__purchase_pay', status: 'approved' });
      expect(runTraces.some((e) => e.type === 'confirmation_pending')).toBe(true);
      expect(blockHook).toMatchObject({ outcome: 'block' });
      expect(reads).toHaveLength(0);
    }
    expect(pays).toHaveLength(1);
  });

  it('a strict delegate under a lax caller waits for approval; a lax delegate under a strict caller does not', async () => {
    const reader = (strict: boolean) =>
      createAgent(`reader-${strict}-${Date.now()}`, {
        ...scripted([{ tool_calls: [{ name: 'oa__list_purchases', args: {} }] }, { content: 'listed' }]),
        tools: ['oa__list_purchases'],
        require_confirmation_for_all: strict,
      });
    const caller = (delegate: string, strict: boolean) =>
      createAgent(`caller-${strict}-${Date.now()}`, {
        ...scripted([
          { tool_calls: [{ name: 'call_agent', args: { agent_id: delegate, task: 'list' } }] },
          { content: 'done' },
        ]),
        tools: ['call_agent'],
        delegates: [delegate],
        require_confirmation_for_all: strict,
      });
    const toolsConfirmed = async (fn: () => Promise<unknown>) => {
      const before = (await allConfirmations()).length;
      await fn();
      const all = await allConfirmations();
      return all
        .slice(0, all.length - before)
        .map((c) => c.tool)
        .sort();
    };
    const strictDelegate = await reader(true);
    const laxCaller = await caller(strictDelegate, false);
    expect(await toolsConfirmed(() => chat(t, admin, { agent_id: laxCaller, message: 'go' }))).toEqual([
      'oa__list_purchases',
    ]);
    const laxDelegate = await reader(false);
    const strictCaller = await caller(laxDelegate, true);
    // Only the caller's own call (call_agent) is gated by the caller's setting; the delegate's read is not.
    expect(await toolsConfirmed(() => chat(t, admin, { agent_id: strictCaller, message: 'go' }))).toEqual([
      'call_agent',
    ]);
    expect(oa.requests.filter((r) => r.path === '/purchases')).toHaveLength(2);
  });

  it('workflow start -> agent (needs approval) -> condition -> end: approve completes it, reject fails the node with the reason', async () => {
    const simplePayer = await createAgent(`simple-payer-${Date.now()}`, {
      ...scripted([
        { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-7', amount: 70000 } }] },
        { content: 'paid PO-7' },
      ]),
      tools: ['oa__purchase_pay'],
    });
    const wf = await t.request('POST', '/api/workflows', {
      token: admin,
      body: {
        name: `approve-${Date.now()}`,
        definition: {
          nodes: [
            { id: 'start', type: 'start' },
            { id: 'pay', type: 'agent', agent_id: simplePayer, prompt: 'Pay {{inputs.po}}' },
            { id: 'check', type: 'condition', expression: "nodes.pay.output.contains('paid')" },
            { id: 'end', type: 'end' },
          ],
          edges: [
            { from: 'start', to: 'pay' },
            { from: 'pay', to: 'check' },
            { from: 'check', to: 'end', when: 'nodes.check.output == true' },
          ],
        },
      },
    });
    expect(wf.status).toBe(201);
    const runWorkflow = async (decision: 'approve' | 'reject') => {
      approving = false;
      const started = await t.request('POST', `/api/workflows/${wf.body.id}/runs`, {
        token: admin,
        body: { inputs: { po: 'PO-7' } },
      });
      const waiting = await waitFor(async () => {
        const r = await t.request('GET', `/api/workflow-runs/${started.body.run_id}`, { token: admin });
        return r.body.status === 'waiting' ? r.body : undefined;
      });
      expect(waiting.nodes.pay.status).toBe('waiting');
      const [c] = await pending();
      expect(
        (
          await t.request('POST', `/api/confirmations/${c.id}/decision`, {
            token: admin,
            body: { decision, reason: 'not this week' },
          })
        ).status,
      ).toBe(200);
      return waitFor(async () => {
        const r = await t.request('GET', `/api/workflow-runs/${started.body.run_id}`, { token: admin });
        return ['completed', 'failed'].includes(r.body.status) ? r.body : undefined;
      });
    };
    const approved = await runWorkflow('approve');
    expect(approved).toMatchObject({
      status: 'completed',
      nodes: {
        pay: { status: 'completed', output: 'paid PO-7' },
        check: { status: 'completed', output: true },
        end: { status: 'completed' },
      },
    });
    expect(oa.requests.filter((r) => r.path === '/purchases/PO-7/pay')).toHaveLength(1);
    const rejected = await runWorkflow('reject');
    expect(rejected.status).toBe('failed');
    expect(rejected.nodes.pay).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/Tool call blocked by confirmation_gate: rejected by alice.*not this week/),
    });
    expect(rejected.error).toMatch(/node pay failed/);
    expect(oa.requests.filter((r) => r.path === '/purchases/PO-7/pay')).toHaveLength(1);
  });

  it('a CONNECTOR node goes through the same hooks and gate: approval pays once, a blocking node hook fails the node', async () => {
    const wf = await t.request('POST', '/api/workflows', {
      token: admin,
      body: {
        name: `connector-${Date.now()}`,
        definition: {
          nodes: [
            { id: 'start', type: 'start' },
            {
              id: 'pay',
              type: 'connector',
              tool: 'oa__purchase_pay',
              args: { id: '{{inputs.po}}', amount: '{{inputs.amount}}' },
            },
            {
              id: 'check',
              type: 'condition',
              expression: "nodes.pay.output.path == '/purchases/' + inputs.po + '/pay'",
            },
            {
              id: 'look',
              type: 'connector',
              tool: 'oa__get_purchase',
              args: { id: '{{inputs.po}}' },
              hooks: { class_hooks: [{ name: 'test_block_tool', config: { tool: 'oa__get_purchase' } }] },
            },
            { id: 'end', type: 'end' },
          ],
          edges: [
            { from: 'start', to: 'pay' },
            { from: 'pay', to: 'check' },
            { from: 'check', to: 'look', when: 'nodes.check.output' },
            { from: 'look', to: 'end' },
          ],
        },
      },
    });
    expect(wf.status).toBe(201);
    approving = false;
    const started = await t.request('POST', `/api/workflows/${wf.body.id}/runs`, {
      token: admin,
      body: { inputs: { po: 'PO-5', amount: 90000 } },
    });
    const waiting = await waitFor(async () => {
      const r = await t.request('GET', `/api/workflow-runs/${started.body.run_id}`, { token: admin });
      return r.body.status === 'waiting' ? r.body : undefined;
    });
    expect(oa.requests).toHaveLength(0);
    const [c] = await pending();
    expect(c).toMatchObject({ tool: 'oa__purchase_pay', run_id: waiting.nodes.pay.agent_run_id });
    expect(
      (await t.request('POST', `/api/confirmations/${c.id}/decision`, { token: admin, body: { decision: 'approve' } }))
        .status,
    ).toBe(200);
    const done = await waitFor(async () => {
      const r = await t.request('GET', `/api/workflow-runs/${started.body.run_id}`, { token: admin });
      return ['completed', 'failed'].includes(r.body.status) ? r.body : undefined;
    });
    expect(done.nodes.pay).toMatchObject({ status: 'completed', output: { ok: true, path: '/purchases/PO-5/pay' } });
    expect(done.nodes.check).toMatchObject({ status: 'completed', output: true });
    expect(done.nodes.look).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('Tool call blocked by test_block_tool'),
    });
    expect(done.status).toBe('failed');
    const pays = oa.requests.filter((r) => r.path === '/purchases/PO-5/pay');
    expect(pays).toHaveLength(1);
    expect(pays[0].body).toEqual({ amount: 90000 });
    expect(oa.requests.filter((r) => r.path === '/purchases/PO-5')).toHaveLength(0);
    const trace = (await t.request('GET', `/api/runs/${done.nodes.look.agent_run_id}`, { token: admin })).body;
    expect(trace).toMatchObject({ surface: 'workflow' });
    const events = await t.request('GET', `/api/workflow-runs/${started.body.run_id}/events`, { token: admin });
    expect(events.text).toMatch(/event: node_waiting/);
    expect(events.text.trim().split('\n\n').at(-1)).toMatch(/^id: \d+\nevent: done\n/);
    const resumed = await t.request('GET', `/api/workflow-runs/${started.body.run_id}/events`, {
      token: admin,
      headers: { 'last-event-id': '3' },
    });
    expect(resumed.text.startsWith('id: 4\n')).toBe(true);
    expect(
      (
        await t.request('GET', `/api/workflow-runs/${started.body.run_id}/events`, {
          token: admin,
          headers: { 'last-event-id': 'x' },
        })
      ).status,
    ).toBe(400);
  });

  it('cancelling a workflow run waiting for approval ends it, expires its approval (a later approval is refused) and nothing is paid', async () => {
    const wf = await t.request('POST', '/api/workflows', {
      token: admin,
      body: {
        name: `cancel-${Date.now()}`,
        definition: {
          nodes: [
            { id: 'start', type: 'start' },
            { id: 'pay', type: 'connector', tool: 'oa__purchase_pay', args: { id: 'PO-C1', amount: 90000 } },
            { id: 'end', type: 'end' },
          ],
          edges: [
            { from: 'start', to: 'pay' },
            { from: 'pay', to: 'end' },
          ],
        },
      },
    });
    approving = false;
    const started = await t.request('POST', `/api/workflows/${wf.body.id}/runs`, {
      token: admin,
      body: { inputs: {} },
    });
    await waitFor(async () => {
      const r = await t.request('GET', `/api/workflow-runs/${started.body.run_id}`, { token: admin });
      return r.body.status === 'waiting' ? r.body : undefined;
    });
    const [c] = (await pending()).filter((p: any) => p.args.id === 'PO-C1');
    const member = await t.token('mona', 'acme', []);
    expect(
      (await t.request('POST', `/api/workflow-runs/${started.body.run_id}/cancel`, { token: member })).status,
    ).toBe(404);
    const cancelled = await t.request('POST', `/api/workflow-runs/${started.body.run_id}/cancel`, { token: admin });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    expect((await t.request('GET', `/api/confirmations/${c.id}`, { token: admin })).body.status).toBe('expired');
    expect(
      (await t.request('POST', `/api/confirmations/${c.id}/decision`, { token: admin, body: { decision: 'approve' } }))
        .status,
    ).toBe(409);
    expect((await t.request('POST', `/api/workflow-runs/${started.body.run_id}/cancel`, { token: admin })).status).toBe(
      409,
    );
    const events = await t.request('GET', `/api/workflow-runs/${started.body.run_id}/events`, { token: admin });
    expect(events.text.trim().split('\n\n').at(-1)).toMatch(/event: done\ndata: .*"status":"cancelled"/);
    expect((await t.request('GET', `/api/workflow-runs/${started.body.run_id}`, { token: admin })).body.status).toBe(
      'cancelled',
    );
    expect(oa.requests.filter((r) => r.path === '/purchases/PO-C1/pay')).toHaveLength(0);
  });

  it('delegation cycles, depth beyond the limit, cyclic or unknown-agent workflows are refused clearly', async () => {
    const a = await createAgent(`cyc-a-${Date.now()}`, { ...scripted([{ content: 'a' }]) });
    const b = await createAgent(`cyc-b-${Date.now()}`, {
      ...scripted([{ content: 'b' }]),
      tools: ['call_agent'],
      delegates: [a],
    });
    const cyc = await t.request('PUT', `/api/agents/${a}`, {
      token: admin,
      body: {
        name: 'cyc-a',
        model_config_json: { ...scripted([{ content: 'a' }]), tools: ['call_agent'], delegates: [b] },
      },
    });
    expect(cyc.status).toBe(400);
    expect(JSON.stringify(cyc.body.problems)).toMatch(/delegates form a cycle/);

    // A chain of five agents: 3 nested delegations are allowed, the 4th is refused.
    const leaf = await createAgent(`chain-4-${Date.now()}`, scripted([{ content: 'leaf answer' }]));
    let next = leaf;
    for (let i = 3; i >= 0; i--) {
      next = await createAgent(`chain-${i}-${Date.now()}`, {
        ...scripted([
          { tool_calls: [{ name: 'call_agent', args: { agent_id: next, task: 'go deeper' } }] },
          { content: `level ${i} done` },
        ]),
        tools: ['call_agent'],
        delegates: [next],
      });
    }
    const res = await chat(t, admin, { agent_id: next, message: 'go' });
    const refusal = res.events.find(
      (e) => e.event === 'observation' && String(e.data.content).includes('delegation depth limit'),
    );
    expect(refusal).toBeDefined();
    expect(res.events.some((e) => e.event === 'answer' && e.data.content === 'leaf answer')).toBe(false);

    const cyclic = await t.request('POST', '/api/workflows', {
      token: admin,
      body: {
        name: 'cyclic',
        definition: {
          nodes: [
            { id: 's', type: 'start' },
            { id: 'x', type: 'agent', agent_id: a, prompt: 'p' },
            { id: 'y', type: 'agent', agent_id: a, prompt: 'p' },
            { id: 'e', type: 'end' },
          ],
          edges: [
            { from: 's', to: 'x' },
            { from: 'x', to: 'y' },
            { from: 'y', to: 'x' },
            { from: 'y', to: 'e' },
          ],
        },
      },
    });
    expect(cyclic.status).toBe(400);
    expect(JSON.stringify(cyclic.body.problems)).toMatch(/cycle/);
    const badTool = await t.request('POST', '/api/workflows', {
      token: admin,
      body: {
        name: 'bad-tool',
        definition: {
          nodes: [
            { id: 's', type: 'start' },
            { id: 'x', type: 'connector', tool: 'oa__nope', hooks: { class_hooks: ['no_such_hook'] } },
            { id: 'e', type: 'end' },
          ],
          edges: [
            { from: 's', to: 'x' },
            { from: 'x', to: 'e' },
          ],
        },
      },
    });
    expect(badTool.status).toBe(400);
    expect(badTool.body.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/unknown connector tool "oa__nope"/),
        expect.stringMatching(/no_such_hook/),
      ]),
    );
    const unknown = await t.request('POST', '/api/workflows', {
      token: admin,
      body: {
        name: 'unknown',
        definition: {
          nodes: [
            { id: 's', type: 'start' },
            { id: 'x', type: 'agent', agent_id: '00000000-0000-0000-0000-000000000000', prompt: 'p' },
            { id: 'e', type: 'end' },
          ],
          edges: [
            { from: 's', to: 'x' },
            { from: 'x', to: 'e' },
          ],
        },
      },
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body.problems)).toMatch(/unknown agent/);
    expect(
      (await t.request('GET', '/api/workflows', { token: admin })).body.map((w: { name: string }) => w.name),
    ).not.toContain('cyclic');
  });

  it('workflows, workflow runs and evals of another org are 404; members cannot write workflows', async () => {
    const wf = await t.request('POST', '/api/workflows', {
      token: admin,
      body: {
        name: `iso-${Date.now()}`,
        definition: {
          nodes: [
            { id: 's', type: 'start' },
            { id: 'e', type: 'end' },
          ],
          edges: [{ from: 's', to: 'e' }],
        },
      },
    });
    const run = await t.request('POST', `/api/workflows/${wf.body.id}/runs`, { token: admin, body: {} });
    const ev = await t.request('POST', '/api/evals', {
      token: admin,
      body: { agent_id: payer, cases: [{ input: 'hi' }] },
    });
    const other = await t.token('mallory', 'other-org', ['admin']);
    for (const path of [
      `/api/workflows/${wf.body.id}`,
      `/api/workflow-runs/${run.body.run_id}`,
      `/api/workflow-runs/${run.body.run_id}/events`,
      `/api/evals/${ev.body.id}`,
    ]) {
      expect((await t.request('GET', path, { token: other })).status).toBe(404);
    }
    expect((await t.request('POST', `/api/workflows/${wf.body.id}/runs`, { token: other, body: {} })).status).toBe(404);
    expect(
      (await t.request('POST', '/api/evals', { token: other, body: { agent_id: payer, cases: [{ input: 'hi' }] } }))
        .status,
    ).toBe(404);
    expect((await t.request('GET', '/api/workflows', { token: other })).body).toEqual([]);
    const member = await t.token('bob', 'acme', []);
    expect(
      (await t.request('PUT', `/api/workflows/${wf.body.id}`, { token: member, body: { name: 'renamed' } })).status,
    ).toBe(403);
    expect((await t.request('POST', '/api/evals', { token: admin, body: { agent_id: payer, cases: [] } })).status).toBe(
      400,
    );
  });
});
