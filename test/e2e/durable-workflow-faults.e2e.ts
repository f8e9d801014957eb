import { paymentsByPo, until, type Harness } from './process-harness.js';
import { useFaultSuite } from './fault-suite.js';

/**
 * Issue 15 break 7: a workflow run whose instance was paused past its lease is taken over by another instance; the
 * paused one, resumed, must not drive it too (its renewal used to take the lease back, and both called the
 * CONNECTOR node).
 */
describe('durable workflow runs under faults (server processes, PostgreSQL)', () => {
  const suite = useFaultSuite();

  it('break 7: SIGSTOP the driving instance past its lease, SIGCONT: the connector node runs once, the workflow completes once', async () => {
    const h = await suite.harness({ env: { RUN_LEASE_MS: '1500', RUN_RECOVERY_MS: '200' } });
    const a = await h.start({ INSTANCE_ID: 'instance-a' });
    const b = await h.start({ INSTANCE_ID: 'instance-b' });
    const wf = await h.api(a, 'POST', '/api/workflows', {
      name: 'approve-then-pay',
      definition: {
        nodes: [
          { id: 'start', type: 'start' },
          { id: 'approved_pay', type: 'agent', agent_id: h.agentId, prompt: 'Pay PO-71 amount 60000' },
          { id: 'direct_pay', type: 'connector', tool: 'oa__purchase_pay', args: { id: 'PO-72', amount: 100 } },
          { id: 'end', type: 'end' },
        ],
        edges: [
          { from: 'start', to: 'approved_pay' },
          { from: 'approved_pay', to: 'direct_pay' },
          { from: 'direct_pay', to: 'end' },
        ],
      },
    });
    expect(wf.status).toBe(201);
    const started = await h.api(a, 'POST', `/api/workflows/${wf.body.id}/runs`, { inputs: {} });
    expect(started.status).toBe(202);
    const runId = started.body.run_id as string;
    await until(
      'the agent node waits for approval',
      async () =>
        (await h.sql.query(`SELECT id FROM confirmation_requests WHERE status = 'pending'`)).rows[0]?.id as
          string | undefined,
    );

    a.child.kill('SIGSTOP');
    try {
      await until('B took the workflow run and its agent run over', async () => {
        const { rows } = await h.sql.query(
          `SELECT locked_by FROM workflow_runs WHERE id = $1
          UNION ALL SELECT locked_by FROM agent_runs WHERE status IN ('running', 'waiting')`,
          [runId],
        );
        return rows.length === 2 && rows.every((r) => r.locked_by === 'instance-b');
      });
    } finally {
      a.child.kill('SIGCONT');
    }
    // A either notices it lost the run, or (the break) takes the lease back.
    await until(
      'A reacts to the takeover',
      async () =>
        a.output().includes('workflow run lease lost') ||
        (await h.sql.query(`SELECT locked_by FROM workflow_runs WHERE id = $1`, [runId])).rows[0].locked_by ===
          'instance-a',
    );

    // The request the run waits on now: A stopped between asking and writing its turn leaves the first one expired
    // once B redoes the turn and asks again (lost-turn-approval.e2e.ts); a decision on it then answers 409.
    await until('an approval of the request the run waits on', async () => {
      const { rows } = await h.sql.query(`SELECT id FROM confirmation_requests WHERE status = 'pending'`);
      if (rows.length !== 1) return undefined;
      const res = await h.api(b, 'POST', `/api/confirmations/${rows[0].id}/decision`, { decision: 'approve' });
      return res.status === 200;
    });
    const done = await until('the workflow ends', async () => {
      const r = (await h.api(b, 'GET', `/api/workflow-runs/${runId}`)).body;
      return ['completed', 'failed'].includes(r.status) ? r : undefined;
    }).catch(async (err: unknown) => {
      throw new Error(
        `${(err as Error).message}\n${await stateOf(h, runId)}\nA:\n${a.output().slice(-4000)}\nB:\n${b.output().slice(-4000)}`,
      );
    });
    expect(done).toMatchObject({ status: 'completed', nodes: { direct_pay: { status: 'completed' } } });
    const events = await fetch(`${b.url}/api/workflow-runs/${runId}/events`, {
      headers: { authorization: `Bearer ${h.token}` },
    }).then((r) => r.text());
    // A barrier: a graceful stop settles every drive of both instances (A's stale one included), so a second payment
    // on its way would have reached the target.
    await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')]);
    expect(Object.fromEntries(paymentsByPo(suite.oa))).toEqual({
      '/purchases/PO-71/pay': 1,
      '/purchases/PO-72/pay': 1,
    });
    expect(events.match(/event: done\n/g)).toHaveLength(1);
    expect(events.match(/event: node_agent_started\ndata: [^\n]*direct_pay/g)).toHaveLength(1);
  }, 90_000);
});

/** What a stuck workflow left in the database: its row, its agent runs and the approvals, for the failure message. */
async function stateOf(h: Harness, runId: string): Promise<string> {
  const q = async (sql: string, params: unknown[] = []) => JSON.stringify((await h.sql.query(sql, params)).rows);
  return [
    await q(`SELECT status, locked_by, lease_until, lease_epoch, nodes FROM workflow_runs WHERE id = $1`, [runId]),
    await q(
      `SELECT id, status, locked_by, lease_until, lease_epoch, parked_on, state->>'phase' AS phase FROM agent_runs`,
    ),
    await q(`SELECT id, status, run_id, responded_at FROM confirmation_requests`),
  ].join('\n');
}
