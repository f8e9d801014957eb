import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { OA_ACTIONS, openChat } from './runtime-helpers.js';

const SHIP_OR_HOLD = { type: 'object', properties: { choice: { enum: ['ship', 'hold'] } }, required: ['choice'] };
const RELEASE_ACTION = {
  name: 'release',
  method: 'POST',
  path: '/releases/{id}',
  description: 'Ship or hold a release',
  parameters: {
    type: 'object',
    properties: { id: { type: 'string' }, decision: { type: 'string' } },
    required: ['id', 'decision'],
  },
};

/**
 * Human tasks (issue #20, acceptance 6, in-process part): a workflow HUMAN node asks a question with a form, waits
 * like the gate, and feeds the answer to the next node; an agent's `ask_human` tool suspends the run the same way and
 * returns the answer as its observation. (The kill -9 part is test/e2e/durable-human-tasks.e2e.ts.)
 */
describe('human tasks: workflow HUMAN node and ask_human (PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let admin: string;

  const answer = (id: string, body: Record<string, unknown>) =>
    t.request('POST', `/api/confirmations/${id}/decision`, { token: admin, body });
  const pendingQuestion = () =>
    until('a pending question', async () => {
      const rows = (await t.request('GET', '/api/confirmations?status=pending', { token: admin })).body as Array<
        Record<string, any>
      >;
      return rows.find((r) => r.tool === 'ask_human');
    });

  beforeAll(async () => {
    oa = await startHttpFake((req) => ({ ok: true, decision: req.body?.decision }));
    t = await startTestApp();
    admin = await t.token('hana', 'acme-human', ['admin'], { name: 'Hana' });
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: admin,
          body: { name: 'oa', base_url: oa.url, actions: [...OA_ACTIONS, RELEASE_ACTION] },
        })
      ).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await oa?.close();
  });

  it('a HUMAN node (ship / hold) answered from the inbox: the next node receives the choice; a bad answer is a 400', async () => {
    const wf = await t.request('POST', '/api/workflows', {
      token: admin,
      body: {
        name: 'release',
        definition: {
          nodes: [
            { id: 'start', type: 'start' },
            {
              id: 'ask',
              type: 'human',
              question: 'Ship release {{inputs.release}}?',
              form: SHIP_OR_HOLD,
              confirmation: { approvers: ['org_admins'] },
            },
            {
              id: 'apply',
              type: 'connector',
              tool: 'oa__release',
              args: { id: '{{inputs.release}}', decision: '{{nodes.ask.output.choice}}' },
            },
            { id: 'end', type: 'end' },
          ],
          edges: [
            { from: 'start', to: 'ask' },
            { from: 'ask', to: 'apply' },
            { from: 'apply', to: 'end' },
          ],
        },
      },
    });
    expect(wf.status).toBe(201);
    const started = await t.request('POST', `/api/workflows/${wf.body.id}/runs`, {
      token: admin,
      body: { inputs: { release: 'R-7' } },
    });
    expect(started.status).toBe(202);
    const runId = started.body.run_id;
    const question = await pendingQuestion();
    expect(question.args).toEqual({ question: 'Ship release R-7?', form: SHIP_OR_HOLD });
    expect(question.args_schema.properties.answer).toEqual(SHIP_OR_HOLD);
    await until(
      'node waiting',
      async () =>
        (await t.request('GET', `/api/workflow-runs/${runId}`, { token: admin })).body.nodes.ask.status === 'waiting' ||
        undefined,
    );

    const bad = await answer(question.id, { decision: 'approve', answer: { choice: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/args\.answer\.choice must be one of \["ship","hold"\]/);
    expect((await answer(question.id, { decision: 'approve' })).status).toBe(400); // a question needs an answer
    expect((await t.request('GET', `/api/confirmations/${question.id}`, { token: admin })).body).toMatchObject({
      status: 'pending',
      votes: [],
    });

    expect((await answer(question.id, { decision: 'approve', answer: { choice: 'ship' } })).status).toBe(200);
    const done = await until(
      'workflow done',
      async () => {
        const r = (await t.request('GET', `/api/workflow-runs/${runId}`, { token: admin })).body;
        return ['completed', 'failed'].includes(r.status) ? r : undefined;
      },
      20_000,
    );
    expect(done).toMatchObject({
      status: 'completed',
      nodes: { ask: { status: 'completed', output: { choice: 'ship' } }, apply: { status: 'completed' } },
    });
    expect(oa.requests.filter((r) => r.path === '/releases/R-7').map((r) => r.body)).toEqual([{ decision: 'ship' }]);
  });

  it('ask_human from an agent: the run waits, the answer is the observation the model reads', async () => {
    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'asker',
        model_config_json: {
          tools: ['ask_human'],
          confirmation: { approvers: ['org_admins'] },
          model: {
            provider: 'scripted',
            script: [
              { tool_calls: [{ name: 'ask_human', args: { question: 'Ship R-8?', form: SHIP_OR_HOLD } }] },
              { content: 'ok' },
            ],
          },
        },
      },
    });
    expect(agent.status).toBe(201);
    const run = openChat(t, admin, { agent_id: agent.body.id, message: 'ask about R-8' });
    const pending = (await run.next('confirmation_pending')).data;
    expect(pending.tool).toBe('ask_human');
    expect((await answer(pending.confirmation_id, { decision: 'approve', answer: { choice: 'hold' } })).status).toBe(
      200,
    );
    const events = await run.finished;
    const observation = events.find((e) => e.event === 'observation')!.data;
    expect(observation).toMatchObject({ tool: 'ask_human', blocked: false, content: '{"choice":"hold"}' });
    expect(events.find((e) => e.event === 'hook' && e.data.hook === 'confirmation_gate')!.data.side_effects).toEqual([
      'answered by Hana',
    ]);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
  });
});
