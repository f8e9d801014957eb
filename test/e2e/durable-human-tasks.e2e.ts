import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { kill9, startProcesses, type ProcessHarness } from './process-harness.js';

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

/** Issue #20, acceptance 6: a HUMAN node and an agent's ask_human wait durably — kill -9, restart, answer -> completes once. */
describe('durable human tasks (server processes, PostgreSQL)', () => {
  let oa: HttpFake;
  let h: ProcessHarness | undefined;

  beforeAll(async () => {
    oa = await startHttpFake((req) => ({ ok: true, decision: req.body?.decision }));
  });
  afterAll(async () => {
    await h?.close();
    await oa?.close();
  });

  it('a HUMAN node and an ask_human call waiting: kill -9, restart, answer from the inbox -> the workflow and the run complete once', async () => {
    h = await startProcesses();
    const { token, start, api } = h;
    let server = await start();
    expect(
      (await api(server, 'POST', '/api/connectors', { name: 'oa', base_url: oa.url, actions: [RELEASE_ACTION] }))
        .status,
    ).toBe(201);
    const wf = await api(server, 'POST', '/api/workflows', {
      name: 'release',
      definition: {
        nodes: [
          { id: 'start', type: 'start' },
          {
            id: 'ask',
            type: 'human',
            question: 'Ship {{inputs.release}}?',
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
    });
    expect(wf.status).toBe(201);
    const agent = await api(server, 'POST', '/api/agents', {
      name: 'asker',
      model_config_json: {
        tools: ['ask_human'],
        confirmation: { approvers: ['org_admins'] },
        model: {
          provider: 'scripted',
          script: [
            { tool_calls: [{ name: 'ask_human', args: { question: 'Ship R-10?', form: SHIP_OR_HOLD } }] },
            { content: 'asked' },
          ],
        },
      },
    });
    expect(agent.status).toBe(201);

    const wfRun = (await api(server, 'POST', `/api/workflows/${wf.body.id}/runs`, { inputs: { release: 'R-9' } })).body
      .run_id;
    // The agent's run, started over the chat API; its stream is not needed (the run outlives the connection).
    const chat = fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agent.body.id, message: 'ask' }),
    })
      .then((r) => r.text())
      .catch(() => '');
    const questions = await until(
      'two pending questions',
      async () => {
        const pending = (await api(server, 'GET', '/api/confirmations?status=pending')).body as Array<
          Record<string, any>
        >;
        return pending.length === 2 ? pending : undefined;
      },
      30_000,
      100,
    );
    await until(
      'workflow waiting',
      async () =>
        (await api(server, 'GET', `/api/workflow-runs/${wfRun}`)).body.status === 'waiting' ? true : undefined,
      30_000,
      100,
    );

    await kill9(server);
    await chat;
    server = await start();

    const nodeQuestion = questions.find((q) => q.args.question === 'Ship R-9?')!;
    const agentQuestion = questions.find((q) => q.args.question === 'Ship R-10?')!;
    expect(
      (
        await api(server, 'POST', `/api/confirmations/${nodeQuestion.id}/decision`, {
          decision: 'approve',
          answer: { choice: 'ship' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api(server, 'POST', `/api/confirmations/${agentQuestion.id}/decision`, {
          decision: 'approve',
          answer: { choice: 'hold' },
        })
      ).status,
    ).toBe(200);

    const done = await until(
      'workflow completed',
      async () => {
        const r = (await api(server, 'GET', `/api/workflow-runs/${wfRun}`)).body;
        return ['completed', 'failed'].includes(r.status) ? r : undefined;
      },
      30_000,
      100,
    );
    expect(done).toMatchObject({
      status: 'completed',
      nodes: { ask: { status: 'completed', output: { choice: 'ship' } }, apply: { status: 'completed' } },
    });
    expect(oa.requests.filter((r) => r.path === '/releases/R-9').map((r) => r.body)).toEqual([{ decision: 'ship' }]);

    const agentRun = await until(
      'agent run completed',
      async () => {
        const r = (await api(server, 'GET', `/api/runs/${agentQuestion.run_id}`)).body;
        return ['completed', 'failed'].includes(r.status) ? r : undefined;
      },
      30_000,
      100,
    );
    expect(agentRun).toMatchObject({ status: 'completed', answer: 'asked' });
    const events = await fetch(`${server.url}/api/runs/${agentQuestion.run_id}/events`, {
      headers: { authorization: `Bearer ${token}` },
    }).then((r) => r.text());
    expect(events.match(/event: observation\ndata: [^\n]*"content":"\{\\"choice\\":\\"hold\\"\}"/g)).toHaveLength(1);
  }, 120_000);
});
