import { startOaApp, type OaApp } from './oa-app.js';
import type pg from 'pg';
import type { HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import type { TestApp } from '../support/test-app.js';
import { chat, RuntimeTestHooksModule } from './runtime-helpers.js';

/** Acceptance 2 of #21: an org's hooks join every agent's chain (new agents, delegates, workflow nodes) and cannot be removed. */
describe('org-wide hooks', () => {
  let t: TestApp;
  let oa: HttpFake;
  let admin: string;
  let member: string;
  let db: pg.Client;
  const ORG_POLICY = { class_hooks: [{ name: 'test_block_tool', config: { tool: 'oa__purchase_pay' } }] };
  const payScript = (id: string) => ({
    model: {
      provider: 'scripted',
      script: [{ tool_calls: [{ name: 'oa__purchase_pay', args: { id, amount: 10 } }] }, { content: 'done' }],
    },
    tools: ['oa__*'],
  });
  const createAgent = async (name: string, config: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name, instructions: 'x', model_config_json: config },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const blockedCalls = async (agentId: string) =>
    (
      await db.query(
        `SELECT c.tool, c.status, c.blocked_by, r.surface FROM tool_calls c JOIN agent_runs r ON r.id = c.run_id WHERE r.agent_id = $1`,
        [agentId],
      )
    ).rows;

  let app: OaApp;
  beforeAll(async () => {
    app = await startOaApp(() => ({ ok: true }), { imports: [RuntimeTestHooksModule] });
    ({ t, oa, db, admin } = app);
    member = await t.token('bob', 'acme', []);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('PUT /api/org/hooks is admin-only, validated (400 naming the entry, nothing saved) and readable back', async () => {
    expect((await t.request('PUT', '/api/org/hooks', { token: member, body: ORG_POLICY })).status).toBe(403);
    const bad = await t.request('PUT', '/api/org/hooks', {
      token: admin,
      body: { class_hooks: ['test_block_tool', 'audti_log'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.problems).toEqual([
      'hooks.class_hooks[1]: unknown hook "audti_log" (did you mean "audit_log"?)',
      'hooks.class_hooks[0].config.tool: is required',
    ]);
    const extra = await t.request('PUT', '/api/org/hooks', { token: admin, body: { class_hooks: [], hooks: {} } });
    expect(extra.status).toBe(400);
    expect((await t.request('GET', '/api/org/hooks', { token: admin })).body).toEqual({
      hooks: {},
      updated_by: null,
      updated_at: null,
    });

    const saved = await t.request('PUT', '/api/org/hooks', { token: admin, body: ORG_POLICY });
    expect(saved.status).toBe(200);
    expect(saved.body.hooks).toEqual(ORG_POLICY);
    expect((await t.request('GET', '/api/org/hooks', { token: admin })).body.hooks).toEqual(ORG_POLICY);
  });

  it('an agent created afterwards runs the org hook, and its own config cannot remove or reconfigure it', async () => {
    const agent = await createAgent('after-policy', {
      ...payScript('PO-ORG-1'),
      // Tries to weaken the org policy by redeclaring it for another tool, and adds a hook of its own.
      hooks: { class_hooks: [{ name: 'test_block_tool', config: { tool: 'nothing' } }, 'test_note'] },
    });
    const res = await chat(t, admin, { agent_id: agent, message: 'pay' });
    expect(res.events.at(-1)!.data.status).toBe('completed');
    const observation = res.events.find((e) => e.event === 'observation')!.data;
    expect(observation).toMatchObject({ blocked: true, blocked_by: 'test_block_tool' });
    expect(res.events.some((e) => e.event === 'hook' && e.data.hook === 'test_note')).toBe(true);
    expect(oa.requests.filter((r) => r.path.includes('PO-ORG-1'))).toHaveLength(0);

    const effective = await t.request('GET', `/api/agents/${agent}/hooks/effective`, { token: member });
    expect(effective.status).toBe(200);
    const origin = Object.fromEntries(
      effective.body.hooks.map((h: { name: string; origin: string }) => [h.name, h.origin]),
    );
    expect(origin).toMatchObject({
      test_block_tool: 'org',
      test_note: 'agent',
      confirmation_gate: 'auto',
      audit_log: 'auto',
    });
    expect(effective.body.overridden).toEqual([{ name: 'test_block_tool', by: 'org' }]);
    const pre = effective.body.hooks
      .filter((h: { point: string }) => h.point === 'PreToolUse')
      .map((h: { name: string }) => h.name);
    expect(pre.at(-1)).toBe('confirmation_gate');
    expect(pre.indexOf('test_note')).toBeLessThan(pre.indexOf('test_block_tool'));
  });

  it("a delegate's own runs get the org hook", async () => {
    const delegate = await createAgent('delegate', payScript('PO-ORG-2'));
    const caller = await createAgent('caller', {
      model: {
        provider: 'scripted',
        script: [
          { tool_calls: [{ name: 'call_agent', args: { agent_id: delegate, task: 'pay PO-ORG-2' } }] },
          { content: 'asked' },
        ],
      },
      tools: ['call_agent'],
      delegates: [delegate],
    });
    const res = await chat(t, admin, { agent_id: caller, message: 'delegate the payment' });
    expect(res.events.at(-1)!.data.status).toBe('completed');
    expect(await blockedCalls(delegate)).toEqual([
      { tool: 'oa__purchase_pay', status: 'blocked', blocked_by: 'test_block_tool', surface: 'delegate' },
    ]);
    expect(oa.requests.filter((r) => r.path.includes('PO-ORG-2'))).toHaveLength(0);
  });

  async function runWorkflow(name: string, node: Record<string, unknown>) {
    const wf = await t.request('POST', '/api/workflows', {
      token: admin,
      body: {
        name,
        definition: {
          nodes: [
            { id: 's', type: 'start' },
            { id: 'n', ...node },
            { id: 'e', type: 'end' },
          ],
          edges: [
            { from: 's', to: 'n' },
            { from: 'n', to: 'e' },
          ],
        },
      },
    });
    expect(wf.status).toBe(201);
    const started = await t.request('POST', `/api/workflows/${wf.body.id}/runs`, {
      token: admin,
      body: { inputs: {} },
    });
    expect(started.status).toBe(202);
    return until('workflow finished', async () => {
      const run = await t.request('GET', `/api/workflow-runs/${started.body.run_id}`, { token: admin });
      return ['completed', 'failed'].includes(run.body.status) ? run.body : undefined;
    });
  }

  it('a workflow AGENT node and a CONNECTOR node get the org hook', async () => {
    const agent = await createAgent('wf-agent', payScript('PO-ORG-3'));
    const agentRun = await runWorkflow('org-wf-agent', { type: 'agent', agent_id: agent, prompt: 'pay' });
    expect(agentRun.error).toContain('Tool call blocked by test_block_tool');
    expect(await blockedCalls(agent)).toEqual([
      { tool: 'oa__purchase_pay', status: 'blocked', blocked_by: 'test_block_tool', surface: 'workflow' },
    ]);

    await runWorkflow('org-wf-connector', {
      type: 'connector',
      tool: 'oa__purchase_pay',
      args: { id: 'PO-ORG-4', amount: 5 },
    });
    const { rows } = await db.query(`SELECT c.status, c.blocked_by FROM tool_calls c WHERE c.args->>'id' = 'PO-ORG-4'`);
    expect(rows).toEqual([{ status: 'blocked', blocked_by: 'test_block_tool' }]);
    expect(oa.requests.filter((r) => r.path.includes('PO-ORG-3') || r.path.includes('PO-ORG-4'))).toHaveLength(0);
  });

  it('another org is not affected', async () => {
    const other = await t.token('zed', 'globex', ['admin']);
    await t.request('GET', '/api/me', { token: other });
    expect((await t.request('GET', '/api/org/hooks', { token: other })).body.hooks).toEqual({});
  });
});
