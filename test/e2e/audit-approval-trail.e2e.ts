import { startOaApp, type OaApp } from './oa-app.js';
import type pg from 'pg';
import type { HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import type { TestApp } from '../support/test-app.js';
import { openChat, type LiveChat } from './runtime-helpers.js';

/**
 * #29 break 6: what widens or closes an approval is in the hash-chained trail, not only in editable rows. An approval
 * with changes carries the readable before/after args; a reassignment says who handed what from whom to whom; a
 * cancelled run's expired approval is an event; a standing grant and each call it lets through are events. The chain
 * still verifies, and an edit of the confirmation row afterwards leaves the trail's account untouched.
 */
describe('approval trail: edits, reassignments, cancellations, standing grants (PostgreSQL)', () => {
  let app: OaApp;
  let t: TestApp;
  let oa: HttpFake;
  let db: pg.Client;
  let admin: string;
  let aliceId: string;

  const pay = (id: string, amount: number) => ({ tool_calls: [{ name: 'oa__purchase_pay', args: { id, amount } }] });
  const chat = async (
    po: string,
    script: unknown[],
    timeoutS = 60,
  ): Promise<{ run: LiveChat; pending: Record<string, any> }> => {
    const confirmation = { approvers: ['org_admins'], timeout_s: timeoutS };
    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: `trail-${po}`,
        model_config_json: { tools: ['oa__*'], model: { provider: 'scripted', script }, confirmation },
      },
    });
    expect(agent.status).toBe(201);
    const run = openChat(t, admin, { agent_id: agent.body.id, message: `pay ${po}` });
    const pending = (await run.next('confirmation_pending')).data;
    return { run, pending: { ...pending, run_id: pending.run_id ?? run.events[0].data.run_id } };
  };
  const decide = (id: string, body: Record<string, unknown>) =>
    t.request('POST', `/api/confirmations/${id}/decision`, { token: admin, body });
  /** The chained events about one request, oldest first. */
  const trailOf = async (id: string): Promise<Array<Record<string, any>>> => {
    const res = await t.request('GET', `/api/audit/events?entity_type=confirmation&entity_id=${id}`, { token: admin });
    expect(res.status).toBe(200);
    return (res.body.items as Array<Record<string, any>>).reverse();
  };
  const actionsOf = async (id: string) => (await trailOf(id)).map((e) => e.action);

  beforeAll(async () => {
    app = await startOaApp(() => ({ paid: true }));
    ({ t, oa, db, admin } = app);
    aliceId = (await t.request('GET', '/api/me', { token: admin })).body.user_id;
    const bea = await t.token('bea', 'acme', ['admin'], { name: 'Bea' });
    expect((await t.request('GET', '/api/me', { token: bea })).status).toBe(200);
  });
  afterAll(async () => app?.close());

  it('an approval with changes chains the readable before/after args; editing the row later does not change them', async () => {
    const { run, pending } = await chat('PO-T1', [pay('PO-T1', 68_000), { content: 'done' }]);
    const edited = { id: 'PO-T1', amount: 60_000 };
    expect(
      (await decide(pending.confirmation_id, { decision: 'approve', args: edited, reason: 'budget cap' })).status,
    ).toBe(200);
    await run.finished;
    await db.query(`UPDATE confirmation_requests SET original_args = '{"id":"PO-T1","amount":1}' WHERE id = $1`, [
      pending.confirmation_id,
    ]);

    const approved = (await trailOf(pending.confirmation_id)).find((e) => e.action === 'confirmation.approved');
    expect(approved).toMatchObject({
      actor: aliceId,
      payload: { edit: { before: { id: 'PO-T1', amount: 68_000 }, after: edited, by: 'Alice' }, reason: 'budget cap' },
    });
  });

  it('a reassignment is an event: who handed it over, from which approvers, to whom, why', async () => {
    const { run, pending } = await chat('PO-T2', [pay('PO-T2', 69_000), { content: 'done' }]);
    const id = pending.confirmation_id;
    const moved = await t.request('POST', `/api/confirmations/${id}/reassign`, {
      token: admin,
      body: { to: 'bea', reason: 'her vendor' },
    });
    expect(moved.status).toBe(200);
    const reassigned = (await trailOf(id)).find((e) => e.action === 'confirmation.reassigned');
    expect(reassigned).toMatchObject({
      kind: 'confirmation',
      actor: aliceId,
      payload: { by_name: 'Alice', from: ['org_admins'], to: 'bea', to_approvers: ['users:bea'], reason: 'her vendor' },
    });
    expect(reassigned?.payload.to_user_id).toEqual(expect.any(String));
    await t.request('POST', `/api/runs/${pending.run_id}/cancel`, { token: admin });
    await run.finished;
  });

  it("cancelling a parked run expires its approval with a chained confirmation.expired event (a rejection's equal)", async () => {
    const { run, pending } = await chat('PO-T3', [pay('PO-T3', 69_000), { content: 'done' }]);
    expect((await t.request('POST', `/api/runs/${pending.run_id}/cancel`, { token: admin })).status).toBe(200);
    await run.finished;
    const expired = await until('the expiry event', async () =>
      (await trailOf(pending.confirmation_id)).find((e) => e.action === 'confirmation.expired'),
    );
    expect(expired.payload).toMatchObject({
      decision: 'expired',
      decided_by_name: 'system',
      reason: 'the run was cancelled',
    });
    expect(expired.payload).toMatchObject({
      confirmation_id: pending.confirmation_id,
      run_id: pending.run_id,
      args_digest: expect.any(String),
    });
    expect(oa.requests.filter((r) => r.path === '/purchases/PO-T3/pay')).toHaveLength(0);
  });

  it('an approval nobody decided in time expires with a chained confirmation.expired event', async () => {
    const { run, pending } = await chat('PO-T5', [pay('PO-T5', 69_000), { content: 'done' }], 1);
    await run.finished;
    // The expiry is chained right after the settle that wakes the run, so the run may finish first: wait for it.
    await until('the expiry event', async () =>
      (await trailOf(pending.confirmation_id)).find((e) => e.action === 'confirmation.expired'),
    );
    const expired = (await trailOf(pending.confirmation_id)).filter((e) => e.action === 'confirmation.expired');
    expect(expired).toHaveLength(1);
    expect(expired[0].payload).toMatchObject({ decided_by_name: 'timeout', reason: 'no decision before the deadline' });
  });

  it('a standing grant and each call it lets through are chained events', async () => {
    const script = [pay('PO-T4', 60_000), pay('PO-T4', 65_000), { content: 'done' }];
    const { run, pending } = await chat('PO-T4', script);
    const granted = await decide(pending.confirmation_id, {
      decision: 'approve',
      standing: { when: 'args.amount <= 70000', max_calls: 3 },
    });
    expect(granted.status).toBe(200);
    await run.finished;
    expect(oa.requests.filter((r) => r.path === '/purchases/PO-T4/pay').map((r) => r.body.amount)).toEqual([
      60_000, 65_000,
    ]);

    const trail = await trailOf(pending.confirmation_id);
    expect(trail.map((e) => e.action)).toEqual([
      'confirmation.vote',
      'confirmation.approved',
      'standing_approval.granted',
      'standing_approval.used',
    ]);
    expect(trail[2]).toMatchObject({
      actor: aliceId,
      payload: {
        standing_approval_id: granted.body.standing_approval.id,
        when: 'args.amount <= 70000',
        max_calls: 3,
        granted_by: 'Alice',
      },
    });
    expect(trail[3].payload).toMatchObject({
      standing_approval_id: granted.body.standing_approval.id,
      uses: 2,
      max_calls: 3,
    });
    expect(trail[3].payload.call_id).not.toBe(pending.call_id);
  });

  it('GET /api/audit/verify still verifies the whole chain', async () => {
    expect(await actionsOf('00000000-0000-0000-0000-000000000000')).toEqual([]);
    expect((await t.request('GET', '/api/audit/verify', { token: admin })).body).toMatchObject({
      valid: true,
      first_broken: null,
    });
  });
});
