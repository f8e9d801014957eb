import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import type { ServerProcess } from '../support/server-process.js';
import { kill9, payingModel, startHarness, until, type Harness } from './process-harness.js';

interface EvalRow {
  status: string;
  error: string | null;
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
  /** The model's first answer to a case naming one of these is held until the test ends: the case is under way. */
  const holdFirst = new Set(['PO-E1', 'PO-S1', 'PO-I1']);
  let releaseHeld: () => void = () => undefined;

  beforeAll(async () => {
    const held = new Promise<void>((resolve) => (releaseHeld = resolve));
    llm = await startFakeOpenAI(async (body) => {
      const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
      const po = [...holdFirst].find((p) => user.includes(p));
      if (po) {
        holdFirst.delete(po);
        await held;
      }
      return payingModel(body);
    });
    oa = await startHttpFake(() => ({ paid: true }));
  });
  afterAll(async () => {
    releaseHeld();
    await h?.close();
    await llm?.close();
    await oa?.close();
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const evalRow = async (id: string) =>
    (await h!.sql.query<EvalRow>(`SELECT status, error, case_run_id, results FROM evals WHERE id = $1`, [id])).rows[0];

  /** Starts a two-case eval on a first instance, stops it with `stop` mid-case, starts another: the eval must end. */
  async function evalAcrossRestart(
    po: [string, string],
    stop: (server: ServerProcess) => Promise<unknown>,
    meanwhile: () => Promise<unknown> = () => Promise.resolve(),
  ) {
    h = await startHarness({ llm, oa });
    const a = await h.start();
    const created = await h.api(a, 'POST', '/api/evals', {
      agent_id: h.agentId,
      cases: po.map((p, i) => ({ input: `Pay ${p} amount ${10 * (i + 1)}`, expect_contains: `Finished ${p}` })),
    });
    expect(created.status).toBe(202);
    const evalId = created.body.id as string;
    // The first case's run is recorded and its model call is under way (held) when the instance stops.
    const underWay = await until('the first case under way', async () => {
      const row = await evalRow(evalId);
      return row.case_run_id && llm.requests.some((r) => r.messages.some((m) => m.content?.includes(po[0])))
        ? row
        : undefined;
    });
    await stop(a);
    await meanwhile();
    const b = await h.start();
    const ended = await until(
      'the eval ended',
      async () => {
        const row = await evalRow(evalId);
        return row.status === 'running' ? undefined : row;
      },
      60_000,
    );
    return { sql: h.sql, api: h.api, b, evalId, underWay, ended };
  }

  it('kill -9 mid-case, restart: the case under way is waited for, not started again; the eval completes', async () => {
    const { sql, api, b, evalId, underWay, ended } = await evalAcrossRestart(['PO-E1', 'PO-E2'], kill9);
    expect(ended.status).toBe('completed');
    expect(ended.results.map((r) => [r.passed, r.output])).toEqual([
      [true, expect.stringContaining('Finished PO-E1')],
      [true, expect.stringContaining('Finished PO-E2')],
    ]);
    expect(ended.results[0].run_id).toBe(underWay.case_run_id);
    const runs = await sql.query(`SELECT id FROM agent_runs WHERE surface = 'eval'`);
    expect(runs.rowCount).toBe(2);
    // Writes are simulated in evals: nothing was paid, before or after the restart.
    expect(oa.requests.filter((r) => r.path.endsWith('/pay'))).toEqual([]);
    expect((await api(b, 'GET', `/api/evals/${evalId}`)).body).toMatchObject({ status: 'completed' });
  }, 120_000);

  it('SIGTERM mid-case (a graceful restart): the eval is handed back, continued by the next instance, and completes', async () => {
    const { sql, underWay, ended } = await evalAcrossRestart(['PO-S1', 'PO-S2'], (server) => server.stop('SIGTERM'));
    expect(ended.status).toBe('completed');
    expect(ended.results.map((r) => r.passed)).toEqual([true, true]);
    expect(ended.results[0].run_id).toBe(underWay.case_run_id);
    expect((await sql.query(`SELECT id FROM agent_runs WHERE surface = 'eval'`)).rowCount).toBe(2);
  }, 120_000);

  it('continued after a restart but unable to go on (its agent deleted meanwhile): it ends interrupted, saying why', async () => {
    const { ended } = await evalAcrossRestart(['PO-I1', 'PO-I2'], kill9, async () => {
      await h!.sql.query(`DELETE FROM agents WHERE id = $1`, [h!.agentId]);
    });
    expect(ended.status).toBe('interrupted');
    expect(ended.error).toMatch(/agent/i);
  }, 120_000);
});
