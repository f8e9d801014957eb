import { startFakeOpenAI, type ChatRequestBody, type FakeOpenAI, type FakeReply } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { sleep } from '../support/eventually.js';
import {
  armCrashPoint,
  expectWellFormedStory,
  kill9,
  payingModel,
  paymentsByPo,
  startHarness,
  until,
  type Harness,
} from './process-harness.js';

/**
 * Durability under faults (issue 15), each break as an operator's bad day would produce it, on real server
 * processes sharing one PostgreSQL database: a crash between two statements of a step, a paused instance whose
 * runs were taken over, a cancel on another instance, SIGTERM with a call in flight, a truncated model stream.
 */
describe('durability under faults (server processes, PostgreSQL)', () => {
  let llm: FakeOpenAI;
  let oa: HttpFake;
  /** Per purchase order: how long the fake target takes to answer. */
  const delays = new Map<string, number>();
  /** Per purchase order: how the fake model mangles its reply (by attempt). */
  let mangle: (po: string, attempt: number) => Partial<FakeReply> = () => ({});
  const attempts = new Map<string, number>();
  let h: Harness | undefined;

  beforeAll(async () => {
    llm = await startFakeOpenAI((body: ChatRequestBody) => {
      const po = /Pay (PO-[\w-]+)/.exec(body.messages.find((m) => m.role === 'user')?.content ?? '')?.[1] ?? '';
      const attempt = (attempts.get(po) ?? 0) + 1;
      attempts.set(po, attempt);
      return { ...payingModel(body), ...mangle(po, attempt) };
    });
    oa = await startHttpFake(async (req) => {
      const po = req.path.split('/')[2];
      // A slow target on purpose: the call is in flight when the test kills, pauses or stops its caller.
      await sleep(delays.get(po) ?? 0);
      return { paid: po, amount: (req.body as { amount?: number })?.amount };
    });
  });
  afterAll(async () => {
    await h?.close();
    await llm?.close();
    await oa?.close();
  });
  beforeEach(() => {
    oa.requests.length = 0;
    delays.clear();
    attempts.clear();
    mangle = () => ({});
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const runIdOf = (events: Array<{ event: string; data: any }>) => events[0].data.run_id as string;
  const statusOf = async (runId: string) =>
    (await h!.sql.query(`SELECT status FROM agent_runs WHERE id = $1`, [runId])).rows[0].status as string;

  it('break 2: killed between the final answer and the completion, the resumed run never pays again', async () => {
    h = await startHarness({ llm, oa });
    const a = await h.start();
    const crash = await armCrashPoint(h.sql, 'completed');
    const pos = ['PO-21', 'PO-22', 'PO-23', 'PO-24'];
    const runIds = await Promise.all(
      pos.map(async (po) => runIdOf(await h!.chatUntil(a, `Pay ${po} amount 100`, (e) => e.event === 'run'))),
    );
    await until('every run is inside its completion', async () => (await crash.waiting()).length === pos.length);
    await kill9(a);
    await crash.disarm();
    const b = await h.start();
    await until('every run completes on the new instance', async () => {
      const statuses = await Promise.all(runIds.map(statusOf));
      return statuses.every((s) => s === 'completed');
    });
    for (const runId of runIds) expectWellFormedStory(await h.story(b, runId));
    // A barrier: a graceful stop settles every drive of B, so no payment can still be on its way.
    await b.stop('SIGTERM');
    expect([...paymentsByPo(oa).values()]).toEqual([1, 1, 1, 1]);
  }, 90_000);

  it('break 3: kill -9 during a burst of payments: audit rows == connector calls, the ones cut in flight say interrupted', async () => {
    h = await startHarness({ llm, oa });
    const a = await h.start();
    const pos = Array.from({ length: 16 }, (_, i) => `PO-3${String(i).padStart(2, '0')}`);
    pos.forEach((po, i) => delays.set(po, i % 2 === 0 ? 0 : 4000));
    const runIds = await Promise.all(
      pos.map(async (po) => runIdOf(await h!.chatUntil(a, `Pay ${po} amount 100`, (e) => e.event === 'run'))),
    );
    await until('every payment reached the target', () => oa.requests.length === pos.length);
    await kill9(a);
    const b = await h.start();
    await until('every run completes after recovery', async () =>
      (await Promise.all(runIds.map(statusOf))).every((s) => s === 'completed'),
    );
    for (const runId of runIds) expectWellFormedStory(await h.story(b, runId));
    // A barrier for B's audit batches (SIGTERM drains them): a batch landing late must not add a row either.
    await b.stop('SIGTERM');
    const rows = (await h.sql.query(`SELECT call_id, outcome FROM connector_call_logs WHERE blocked_by IS NULL`)).rows;
    expect(rows.map((r) => r.call_id).sort()).toEqual(
      oa.requests.map((r) => String(r.headers['idempotency-key'])).sort(),
    );
    const interrupted = (await h.sql.query(`SELECT call_id FROM tool_calls WHERE error = 'interrupted'`)).rows
      .map((r) => r.call_id)
      .sort();
    expect(interrupted.length).toBeGreaterThan(0);
    expect(
      rows
        .filter((r) => r.outcome === 'interrupted')
        .map((r) => r.call_id)
        .sort(),
    ).toEqual(interrupted);
    expect(rows.filter((r) => r.outcome === 'in_flight')).toEqual([]);
  }, 90_000);

  it('break 1: a paused instance whose runs were taken over decides nothing and writes nothing when it resumes', async () => {
    // Waiting runs kept in their process (no parking): A holds the gated runs' leases when it is paused.
    h = await startHarness({
      llm,
      oa,
      env: { RUN_LEASE_MS: '1500', RUN_RECOVERY_MS: '200', RUN_PARK_ON_APPROVAL: 'false' },
    });
    const a = await h.start(); // the set-up server, taken over: A only needs to be another instance than B
    const b = await h.start({ INSTANCE_ID: 'instance-b' });
    const gated = ['PO-11', 'PO-12', 'PO-13', 'PO-14', 'PO-15', 'PO-16'];
    const waiting = await Promise.all(
      gated.map(async (po) => {
        const events = await h!.chatUntil(a, `Pay ${po} amount 60000`, (e) => e.event === 'confirmation_pending');
        return {
          runId: runIdOf(events),
          confirmationId: events.find((e) => e.event === 'confirmation_pending')!.data.confirmation_id as string,
        };
      }),
    );
    delays.set('PO-19', 3000);
    const slowRun = runIdOf(await h.chatUntil(a, 'Pay PO-19 amount 100', (e) => e.event === 'tool_call'));
    await until('the slow payment reaches the target', () => oa.requests.length === 1);

    a.child.kill('SIGSTOP');
    try {
      await until(
        'B took every run over',
        async () =>
          (
            await h!.sql.query(
              `SELECT count(*)::int AS n FROM agent_runs WHERE locked_by = 'instance-b' OR status = 'completed'`,
            )
          ).rows[0].n === 7,
      );
      await until(
        'B settled the in-flight call and finished its run',
        async () => (await statusOf(slowRun)) === 'completed',
      );
    } finally {
      a.child.kill('SIGCONT');
    }
    await until('A noticed it lost every run', () => (a.output().match(/stopping here/g) ?? []).length >= gated.length);

    const rows = await h.sql.query(`SELECT status, reason FROM confirmation_requests`);
    expect(rows.rows).toEqual(gated.map(() => ({ status: 'pending', reason: null })));
    for (const w of waiting)
      expect(
        (await h.api(b, 'POST', `/api/confirmations/${w.confirmationId}/decision`, { decision: 'approve' })).status,
      ).toBe(200);
    await until('every approved run completes', async () =>
      (await Promise.all(waiting.map((w) => statusOf(w.runId)))).every((s) => s === 'completed'),
    );
    for (const runId of [...waiting.map((w) => w.runId), slowRun]) {
      const story = await h.story(b, runId);
      expectWellFormedStory(story);
      const observed = story.filter((e) => e.event === 'observation').map((e) => e.data.call_id);
      expect(new Set(observed).size).toBe(observed.length);
    }
    // A barrier: a graceful stop settles every drive of both instances (A's stale ones included), so whatever they
    // were going to pay or write has reached the target and the database.
    await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')]);
    const paid = paymentsByPo(oa);
    for (const po of [...gated, 'PO-19']) expect([po, paid.get(`/purchases/${po}/pay`)]).toEqual([po, 1]);
    const slow = (await h.sql.query(`SELECT status, error FROM tool_calls WHERE run_id = $1`, [slowRun])).rows;
    expect(slow).toEqual([{ status: 'failed', error: 'interrupted' }]);
    const twice = await h.sql.query(`SELECT call_id FROM connector_call_logs GROUP BY call_id HAVING count(*) > 1`);
    expect(twice.rows).toEqual([]);
  }, 120_000);

  it('break 8: a cancel on another instance expires the approval, stops the driver, and a later approval is refused', async () => {
    h = await startHarness({ llm, oa });
    const b = await h.start(); // the set-up server, taken over: B only needs to be another instance than A
    const a = await h.start({ INSTANCE_ID: 'instance-a' });
    const events = await h.chatUntil(a, 'Pay PO-81 amount 60000', (e) => e.event === 'confirmation_pending');
    const runId = runIdOf(events);
    const confirmationId = events.find((e) => e.event === 'confirmation_pending')!.data.confirmation_id as string;
    expect((await h.api(b, 'POST', `/api/runs/${runId}/cancel`)).status).toBe(200);
    const row = await h.sql.query(`SELECT status, reason FROM confirmation_requests WHERE id = $1`, [confirmationId]);
    expect(row.rows[0]).toEqual({ status: 'expired', reason: 'the run was cancelled' });
    const late = await h.api(b, 'POST', `/api/confirmations/${confirmationId}/decision`, { decision: 'approve' });
    expect(late.status).toBe(409);
    expect((await h.api(a, 'GET', `/api/runs/${runId}`)).body.status).toBe('cancelled');
    const story = await h.story(b, runId);
    expectWellFormedStory(story);
    expect(story.at(-1)!.data).toMatchObject({ status: 'cancelled' });
    // A barrier: a graceful stop settles A's driver (woken by the expiry), so a payment it made would be counted.
    await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')]);
    expect(oa.requests).toHaveLength(0);
  }, 60_000);

  it('break 4: SIGTERM with a payment in flight is an interruption (not retried, the model told), never "cancelled"', async () => {
    h = await startHarness({ llm, oa });
    const a = await h.start();
    delays.set('PO-41', 8000);
    const events = await h.chatUntil(a, 'Pay PO-41 amount 100', (e) => e.event === 'tool_call');
    const runId = runIdOf(events);
    const callId = events.find((e) => e.event === 'tool_call')!.data.call_id as string;
    await until('the payment reaches the target', () => oa.requests.length === 1);
    await a.stop('SIGTERM');
    const b = await h.start();
    await until('the run completes after the restart', async () => (await statusOf(runId)) === 'completed');
    expect(oa.requests).toHaveLength(1);
    const story = await h.story(b, runId);
    expectWellFormedStory(story);
    expect(story.find((e) => e.event === 'tool_interrupted')?.data).toMatchObject({
      call_id: callId,
      retried: false,
      idempotency_key: callId,
    });
    expect(JSON.stringify(story)).not.toMatch(/the run was cancelled/);
    const row = (await h.sql.query(`SELECT status, error FROM tool_calls WHERE call_id = $1`, [callId])).rows[0];
    expect(row).toEqual({ status: 'failed', error: 'interrupted' });
  }, 60_000);

  it('break 6: a truncated or empty model stream is a model error: retried, then the run fails; its tool calls never run', async () => {
    h = await startHarness({ llm, oa, stream: true });
    const a = await h.start();
    mangle = (po, attempt) =>
      po === 'PO-61'
        ? { truncate: true }
        : po === 'PO-62'
          ? { empty: true }
          : po === 'PO-63' && attempt === 1
            ? { truncate: true }
            : {};
    const story = async (po: string) => h!.chatUntil(a, `Pay ${po} amount 100`, (e) => e.event === 'done');
    const cut = await story('PO-61');
    expect(cut.at(-1)!.data).toMatchObject({ status: 'failed' });
    expect(cut.find((e) => e.event === 'error')!.data.message).toMatch(/model.*stream ended before the turn finished/);
    expect(cut.filter((e) => e.event === 'model_retry')).toHaveLength(2);
    expect(attempts.get('PO-61')).toBe(3);
    const empty = await story('PO-62');
    expect(empty.at(-1)!.data).toMatchObject({ status: 'failed' });
    const once = await story('PO-63');
    expect(once.at(-1)!.data).toMatchObject({ status: 'completed' });
    expect(oa.requests.map((r) => r.path)).toEqual(['/purchases/PO-63/pay']);
  }, 60_000);
});
