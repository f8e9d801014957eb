import { armCrashPoint, expectWellFormedStory, kill9, paymentsByPo, until } from './process-harness.js';
import { useFaultSuite } from './fault-suite.js';

/**
 * A model turn of one call is written with the call's next write: for a gated call, the `confirmation_pending` that
 * makes the run wait. A server killed after asking for the approval and before that write leaves a pending request
 * for a call its run never recorded; the run, resumed, redoes the turn and asks again. The first request must not
 * stay pending forever (found by durable-workflow-faults timing out: the test approved the first request, the run
 * waited on the second).
 */
describe('an approval asked in a model turn lost with its server (server processes, PostgreSQL)', () => {
  const suite = useFaultSuite();

  it('expires, audited; the approval asked again pays once, and a decision on the lost one is refused', async () => {
    const h = await suite.harness();
    const a = await h.start();
    // Inside the statement that writes the turn and makes the run wait: the request was inserted just before.
    const crash = await armCrashPoint(h.sql, 'waiting');
    void h.chatUntil(a, 'Pay PO-91 amount 60000', () => false).catch(() => undefined);
    await until('the turn write waits at the crash point', async () => (await crash.waiting()).length === 1);
    const lost = (await h.sql.query(`SELECT id, run_id, call_id FROM confirmation_requests`)).rows;
    expect(lost).toHaveLength(1);
    const [{ id: lostId, run_id: runId, call_id: lostCall }] = lost;
    await kill9(a);
    await crash.disarm();

    const b = await h.start();
    const askedAgain = await until('the resumed run asks again', async () => {
      const { rows } = await h.sql.query(
        `SELECT id, call_id FROM confirmation_requests WHERE run_id = $1 AND status = 'pending' AND id <> $2`,
        [runId, lostId],
      );
      return rows[0] as { id: string; call_id: string } | undefined;
    });
    expect(askedAgain.call_id).not.toBe(lostCall);
    await until('the request asked again is delivered', async () => {
      const { rows } = await h.sql.query(`SELECT sent_card FROM confirmation_requests WHERE id = $1`, [askedAgain.id]);
      return rows[0].sent_card !== null;
    });
    const { rows: after } = await h.sql.query(
      `SELECT status, reason, sent_card FROM confirmation_requests WHERE id = $1`,
      [lostId],
    );
    // Its card never went out (the gate sends it only after the write that makes the run wait, the one lost here):
    // nobody was ever shown a request that cannot be acted on, so no card needs marking expired.
    expect(after[0]).toEqual({
      status: 'expired',
      reason: expect.stringContaining('lost when its server stopped'),
      sent_card: null,
    });
    const { rows: audit } = await h.sql.query(
      `SELECT action, payload->>'reason' AS reason FROM audit_events WHERE entity_id = $1`,
      [lostId],
    );
    expect(audit).toContainEqual({ action: 'confirmation.expired', reason: after[0].reason });

    const late = await h.api(b, 'POST', `/api/confirmations/${lostId}/decision`, { decision: 'approve' });
    expect(late.status).toBe(409);
    const approve = await h.api(b, 'POST', `/api/confirmations/${askedAgain.id}/decision`, { decision: 'approve' });
    expect(approve.status).toBe(200);
    await until('the run completes', async () => {
      const { rows } = await h.sql.query(`SELECT status FROM agent_runs WHERE id = $1`, [runId]);
      return rows[0].status === 'completed';
    });
    expectWellFormedStory(await h.story(b, runId));
    // A barrier: a graceful stop settles every drive, so a second payment on its way would have arrived.
    await b.stop('SIGTERM');
    expect(Object.fromEntries(paymentsByPo(suite.oa))).toEqual({ '/purchases/PO-91/pay': 1 });
  }, 90_000);
});
