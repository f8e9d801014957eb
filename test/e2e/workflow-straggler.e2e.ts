import { startProcesses, until, type ProcessHarness } from './process-harness.js';

/**
 * A branch still under way when its workflow run ended (a straggler): the run ends when its END node completes, even
 * with a parallel HUMAN node still waiting. Answering that question later changes nothing in the ended run, and the
 * server stays up (its refused write used to be an unhandled rejection: Node ends the process on one).
 */
describe('a workflow branch that outlives its run (server process, PostgreSQL)', () => {
  let h: ProcessHarness | undefined;

  afterAll(async () => {
    await h?.close();
  });

  it('a HUMAN node answered after the run completed: the run is unchanged, the server stays up', async () => {
    h = await startProcesses();
    const { api } = h;
    const server = await h.start();
    const approvers = { approvers: ['org_admins'] };
    const wf = await api(server, 'POST', '/api/workflows', {
      name: 'straggler',
      definition: {
        nodes: [
          { id: 'start', type: 'start' },
          { id: 'gate', type: 'human', question: 'Gate?', confirmation: approvers },
          { id: 'late', type: 'human', question: 'Late?', confirmation: approvers },
          { id: 'end', type: 'end' },
        ],
        edges: [
          { from: 'start', to: 'gate' },
          { from: 'start', to: 'late' },
          { from: 'gate', to: 'end' },
        ],
      },
    });
    expect(wf.status).toBe(201);
    const runId = (await api(server, 'POST', `/api/workflows/${wf.body.id}/runs`, { inputs: {} })).body.run_id;
    const questions = await until('two pending questions', async () => {
      const pending = (await api(server, 'GET', '/api/confirmations?status=pending')).body as Array<
        Record<string, any>
      >;
      return pending.length === 2 ? pending : undefined;
    });
    const ask = (q: string) => questions.find((c) => c.args.question === q)!;
    const decide = (q: string) =>
      api(server, 'POST', `/api/confirmations/${ask(q).id}/decision`, { decision: 'approve', answer: { text: 'ok' } });

    expect((await decide('Gate?')).status).toBe(200);
    const ended = await until('workflow completed', async () => {
      const r = (await api(server, 'GET', `/api/workflow-runs/${runId}`)).body;
      return r.status === 'completed' ? r : undefined;
    });
    expect(ended.nodes.late.status).toBe('waiting');

    expect((await decide('Late?')).status).toBe(200);
    // The late node's run ends (its answer given): then nothing more happens for the ended workflow run.
    await until('the late question answered', async () => {
      const r = (await api(server, 'GET', `/api/runs/${ask('Late?').run_id}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(r?.status) ? true : undefined;
    });
    const health = await api(server, 'GET', '/api/health');

    expect(server.output()).not.toMatch(/unhandledRejection|Unhandled|RunInterruptedError/);
    expect(server.child.exitCode).toBeNull();
    expect(health.status).toBe(200);
    expect((await api(server, 'GET', `/api/workflow-runs/${runId}`)).body).toMatchObject({
      status: 'completed',
      nodes: ended.nodes,
    });
  }, 120_000);
});
