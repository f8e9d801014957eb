import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { kill9, payingModel, startHarness, until, type Harness } from './process-harness.js';

interface EvalRow {
  status: string;
  case_run_id: string | null;
  results: Array<{ run_id: string; passed: boolean; output: string | null }>;
}

/**
 * An eval is a run of runs (issue 30, break 4): the instance driving it dies mid-case, and after the restart the eval
 * continues — the case under way is waited for (its run recovered, not started again), the next case runs — and
 * ends; it never stays `running`.
 */
describe('durable evals (server processes, PostgreSQL)', () => {
  let llm: FakeOpenAI;
  let oa: HttpFake;
  let h: Harness | undefined;
  /** Holds the model's first answer for PO-E1 until released: the instance is killed while the case is under way. */
  let releaseFirst: () => void = () => undefined;

  beforeAll(async () => {
    const held = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstSeen = false;
    llm = await startFakeOpenAI(async (body) => {
      const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
      if (user.includes('PO-E1') && !firstSeen) {
        firstSeen = true;
        await held;
      }
      return payingModel(body);
    });
    oa = await startHttpFake(() => ({ paid: true }));
  });
  afterAll(async () => {
    releaseFirst();
    await h?.close();
    await llm?.close();
    await oa?.close();
  });

  const evalRow = async (id: string) =>
    (await h!.sql.query<EvalRow>(`SELECT status, case_run_id, results FROM evals WHERE id = $1`, [id])).rows[0];

  it('kill -9 mid-case, restart: the case under way is waited for, not started again; the eval completes', async () => {
    h = await startHarness({ llm, oa });
    const a = await h.start();
    const created = await h.api(a, 'POST', '/api/evals', {
      agent_id: h.agentId,
      cases: [
        { input: 'Pay PO-E1 amount 10', expect_contains: 'Finished PO-E1' },
        { input: 'Pay PO-E2 amount 20', expect_contains: 'Finished PO-E2' },
      ],
    });
    expect(created.status).toBe(202);
    const evalId = created.body.id as string;
    // The first case's run is recorded and its model call is under way (held) when the instance dies.
    const underWay = await until('the first case under way', async () => {
      const row = await evalRow(evalId);
      return row.case_run_id && llm.requests.length > 0 ? row : undefined;
    });
    await kill9(a);

    const b = await h.start();
    const ended = await until(
      'the eval ended',
      async () => {
        const row = await evalRow(evalId);
        return row.status === 'running' ? undefined : row;
      },
      60_000,
    );
    expect(ended.status).toBe('completed');
    expect(ended.results.map((r) => [r.passed, r.output])).toEqual([
      [true, expect.stringContaining('Finished PO-E1')],
      [true, expect.stringContaining('Finished PO-E2')],
    ]);
    expect(ended.results[0].run_id).toBe(underWay.case_run_id);
    const runs = await h.sql.query(`SELECT id FROM agent_runs WHERE surface = 'eval'`);
    expect(runs.rowCount).toBe(2);
    // Writes are simulated in evals: nothing was paid, before or after the restart.
    expect(oa.requests.filter((r) => r.path.endsWith('/pay'))).toEqual([]);
    expect((await h.api(b, 'GET', `/api/evals/${evalId}`)).body).toMatchObject({ status: 'completed' });
  }, 120_000);
});
