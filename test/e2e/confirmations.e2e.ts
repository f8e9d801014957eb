import { ConfirmationGateHook, ConfirmationWaiter, ConfirmationService } from '@warden/confirmations';
import { HookPoint, type AgentHookSettings, type HookContext, type HookResult } from '@warden/hooks';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { armStatementHold } from './process-harness.js';
import { until } from '../support/eventually.js';

interface Person {
  sub: string;
  token: string;
  userId: string;
  orgId: string;
}
interface GateRun {
  result: Promise<HookResult>;
  events: Array<{ type: string; data: Record<string, any> }>;
  runId: string;
  callId: string;
  abort: AbortController;
}

async function person(t: TestApp, sub: string, org: string, roles: string[] = []): Promise<Person> {
  const token = await t.token(sub, org, roles, { name: sub[0].toUpperCase() + sub.slice(1) });
  const me = await t.request('GET', '/api/me', { token });
  expect(me.status).toBe(200);
  return { sub, token, userId: me.body.user_id, orgId: me.body.org_id };
}

function agent(owner: Person, confirmation: Partial<AgentHookSettings['confirmation']> = {}): AgentHookSettings {
  return {
    id: randomUUID(),
    name: 'buyer',
    ownerUserId: owner.userId,
    requireConfirmationForAll: false,
    confirmation: { timeoutS: 60, approverScope: 'org_members', forbidSelfApproval: false, ...confirmation },
  };
}

/** Runs the gate the way the hook registry does, collecting the run events it emits. */
function runGate(
  t: TestApp,
  requester: Person,
  settings: AgentHookSettings,
  opts: { runId?: string; callId?: string; args?: Record<string, unknown>; dryRun?: boolean } = {},
): GateRun {
  const events: GateRun['events'] = [];
  const abort = new AbortController();
  const runId = opts.runId ?? randomUUID();
  const callId = opts.callId ?? `call_${randomUUID().slice(0, 8)}`;
  const ctx: HookContext = {
    point: HookPoint.PreToolUse,
    toolName: 'oa__purchase_pay',
    toolArgs: opts.args ?? { id: 'PO-7', amount: 60000 },
    agentId: settings.id,
    userId: requester.userId,
    orgId: requester.orgId,
    runId,
    callId,
    surface: 'chat',
    metadata: { requiresConfirmation: true, agent: settings, dryRun: opts.dryRun },
    emit: (type, data) => Promise.resolve(void events.push({ type, data })),
    signal: abort.signal,
  };
  const gate = t.app.get(ConfirmationGateHook);
  expect(gate.shouldTrigger(ctx)).toBe(true);
  return { result: Promise.resolve(gate.execute(ctx)), events, runId, callId, abort };
}

const pendingId = (run: GateRun) =>
  until(
    'confirmation_pending',
    () => run.events.find((e) => e.type === 'confirmation_pending')?.data.confirmation_id as string | undefined,
  );

/** Resolves once `t`'s waiter waits on `n` confirmations (the gate has delivered its card and parked). */
const waitsOn = (t: TestApp, n: number) =>
  until(`${n} confirmation(s) waited on`, () => t.app.get(ConfirmationWaiter).waitingCount === n);

/** The payloads of the waiter's LISTEN connection from now on. */
function notificationsOf(waiter: ConfirmationWaiter): string[] {
  const seen: string[] = [];
  waiter.observeNotifications((payload) => seen.push(payload));
  return seen;
}

async function rowOf(t: TestApp, who: Person, id: string) {
  const res = await t.request('GET', `/api/confirmations/${id}`, { token: who.token });
  expect(res.status).toBe(200);
  return res.body;
}

describe('confirmations: gate, waiter, decisions, inbox API (PostgreSQL)', () => {
  // A: notifications only (the poll is a minute away), so a quick cross-instance wake proves LISTEN/NOTIFY.
  let a: TestApp;
  // B: a second instance on the same database, with a short poll.
  let b: TestApp;
  let alice: Person; // requester, member
  let bob: Person; // member
  let carol: Person; // admin
  let mallory: Person; // admin of another org

  beforeAll(async () => {
    a = await startTestApp({ CONFIRMATION_POLL_MS: '60000' });
    b = await startTestApp({ CONFIRMATION_POLL_MS: '200' }, { databaseUrl: a.databaseUrl });
    alice = await person(a, 'alice', 'acme');
    bob = await person(a, 'bob', 'acme');
    carol = await person(a, 'carol', 'acme', ['admin']);
    mallory = await person(a, 'mallory', 'evil', ['admin']);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('the gate is a discovered, auto-attached PreToolUse hook', async () => {
    const hooks = await a.request('GET', '/api/hooks', { token: bob.token });
    expect(hooks.status).toBe(200);
    expect(hooks.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'confirmation_gate', point: 'PreToolUse', priority: 10, auto_attached: true }),
      ]),
    );
  });

  it('approve: the call is allowed, pending/resolved events are emitted, the row says who and when', async () => {
    const run = runGate(a, alice, agent(carol));
    const id = await pendingId(run);
    const pending = run.events[0].data;
    expect(pending).toMatchObject({
      call_id: run.callId,
      tool: 'oa__purchase_pay',
      args: { id: 'PO-7', amount: 60000 },
    });
    expect(pending.channel).toMatchObject({ id: 'inbox', type: 'inbox' });
    expect(new Date(pending.expires_at).getTime() - Date.now()).toBeGreaterThan(50_000);

    const listed = await a.request('GET', '/api/confirmations?status=pending', { token: bob.token });
    expect(listed.status).toBe(200);
    expect(listed.body.map((r: any) => r.id)).toContain(id);

    const res = await a.request('POST', `/api/confirmations/${id}/decision`, {
      token: bob.token,
      body: { decision: 'approve' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: 'approved',
      responded_by: 'Bob',
      responded_by_user_id: bob.userId,
      requested_by: alice.userId,
    });
    expect(res.body.responded_at).toBeTruthy();

    const result = await run.result;
    expect(result.allow).toBe(true);
    expect(run.events.map((e) => e.type)).toEqual(['confirmation_pending', 'confirmation_resolved']);
    expect(run.events[1].data).toEqual({
      call_id: run.callId,
      confirmation_id: id,
      status: 'approved',
      responded_by: 'Bob',
    });
  });

  it('reject: the call is blocked with who rejected it and why', async () => {
    const run = runGate(a, alice, agent(carol));
    const id = await pendingId(run);
    const res = await a.request('POST', `/api/confirmations/${id}/decision`, {
      token: carol.token,
      body: { decision: 'reject', reason: 'over budget' },
    });
    expect(res.status).toBe(200);
    const result = await run.result;
    expect(result).toMatchObject({ allow: false, error: 'rejected by Carol: over budget' });
    expect((await rowOf(a, alice, id)).status).toBe('rejected');
  });

  it('no decision: expires after the agent timeout (2 s), the row says expired and cannot be approved later', async () => {
    const run = runGate(a, alice, agent(carol, { timeoutS: 2 }));
    const id = await pendingId(run);
    const result = await run.result;
    expect(result).toMatchObject({ allow: false, error: 'expired after 2 s' });
    // Expired at its deadline (2 s after the request), not before: the row's own times say so.
    const expired = await rowOf(a, alice, id);
    expect(new Date(expired.expires_at).getTime() - new Date(expired.created_at).getTime()).toBeGreaterThanOrEqual(
      1_900,
    );
    expect(new Date(expired.responded_at).getTime()).toBeGreaterThanOrEqual(new Date(expired.expires_at).getTime());
    expect(run.events[1].data).toMatchObject({ status: 'expired', responded_by: 'timeout' });
    const late = await a.request('POST', `/api/confirmations/${id}/decision`, {
      token: bob.token,
      body: { decision: 'approve' },
    });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ status: 'expired' });
    expect((await rowOf(a, alice, id)).status).toBe('expired');
  });

  it('a second decision gets 409 naming the status; the first stands', async () => {
    const run = runGate(a, alice, agent(carol));
    const id = await pendingId(run);
    expect(
      (
        await a.request('POST', `/api/confirmations/${id}/decision`, {
          token: bob.token,
          body: { decision: 'approve' },
        })
      ).status,
    ).toBe(200);
    const again = await a.request('POST', `/api/confirmations/${id}/decision`, {
      token: carol.token,
      body: { decision: 'reject' },
    });
    expect(again.status).toBe(409);
    expect(again.body.status).toBe('approved');
    expect(again.body.message).toMatch(/already approved/);
    expect((await run.result).allow).toBe(true);
    expect(await rowOf(a, alice, id)).toMatchObject({ status: 'approved', responded_by: 'Bob' });
  });

  // A decision is two statements (the vote, then the settlement). A connection dropped at either decides nothing
  // (fail closed) and says so with a 503 the decider can act on (try again), not "Internal server error".
  it.each([
    ['recording the vote', { table: 'confirmation_votes', event: 'INSERT' as const, when: 'true' }],
    [
      'settling the request',
      {
        table: 'confirmation_requests',
        event: 'UPDATE' as const,
        when: `OLD.status = 'pending' AND NEW.status = 'approved'`,
      },
    ],
  ])(
    'a dropped database connection while %s: 503 saying nothing was decided; deciding again decides',
    async (_, point) => {
      const sql = new pg.Client({ connectionString: a.databaseUrl });
      await sql.connect();
      try {
        const run = runGate(a, alice, agent(carol));
        const id = await pendingId(run);
        const hold = await armStatementHold(sql, point);
        const first = a.request('POST', `/api/confirmations/${id}/decision`, {
          token: bob.token,
          body: { decision: 'approve' },
        });
        await until('the decision is held inside its statement', async () => (await hold.waiting()).length === 1);
        await hold.disarm();
        const answer = await first;
        expect(answer.status).toBe(503);
        expect(answer.body).toMatchObject({
          error: 'Service Unavailable',
          message: expect.stringMatching(/database connection.*nothing was decided.*try again/),
        });
        expect((await rowOf(a, alice, id)).status).toBe('pending');

        const again = await a.request('POST', `/api/confirmations/${id}/decision`, {
          token: bob.token,
          body: { decision: 'approve' },
        });
        expect(again.status).toBe(200);
        expect(again.body).toMatchObject({ status: 'approved', responded_by: 'Bob' });
        expect((await run.result).allow).toBe(true);
      } finally {
        await sql.end();
      }
    },
  );

  it('20 concurrent decisions, approve racing reject, on two instances: exactly one wins', async () => {
    const run = runGate(a, alice, agent(carol));
    const id = await pendingId(run);
    const attempts = Array.from({ length: 20 }, (_, i) => {
      const app = i % 2 === 0 ? a : b;
      return app.request('POST', `/api/confirmations/${id}/decision`, {
        token: i % 3 === 0 ? carol.token : bob.token,
        body: { decision: i % 2 === 0 ? 'approve' : 'reject' },
      });
    });
    const answers = await Promise.all(attempts);
    const wins = answers.filter((r) => r.status === 200);
    expect(wins).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(19);
    const final = await rowOf(a, alice, id);
    expect(final.status).toBe(wins[0].body.status);
    const result = await run.result;
    expect(result.allow).toBe(final.status === 'approved');
    expect(run.events.filter((e) => e.type === 'confirmation_resolved')).toHaveLength(1);
  });

  describe('approver scope', () => {
    it('org_admins: a member is refused (403) and the row is unchanged; an admin may decide', async () => {
      const run = runGate(a, alice, agent(carol, { approverScope: 'org_admins' }));
      const id = await pendingId(run);
      const refused = await a.request('POST', `/api/confirmations/${id}/decision`, {
        token: bob.token,
        body: { decision: 'approve' },
      });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toMatch(/organisation admins/);
      const row = await rowOf(a, alice, id);
      expect(row).toMatchObject({ status: 'pending', responded_by: null, responded_at: null });
      expect(
        (
          await a.request('POST', `/api/confirmations/${id}/decision`, {
            token: carol.token,
            body: { decision: 'approve' },
          })
        ).status,
      ).toBe(200);
      expect((await run.result).allow).toBe(true);
    });

    it('initiator / agent_owner: anyone else is refused', async () => {
      const byInitiator = runGate(a, alice, agent(carol, { approverScope: 'initiator' }));
      const id1 = await pendingId(byInitiator);
      expect(
        (
          await a.request('POST', `/api/confirmations/${id1}/decision`, {
            token: carol.token,
            body: { decision: 'approve' },
          })
        ).status,
      ).toBe(403);
      expect(
        (
          await a.request('POST', `/api/confirmations/${id1}/decision`, {
            token: alice.token,
            body: { decision: 'approve' },
          })
        ).status,
      ).toBe(200);
      expect((await byInitiator.result).allow).toBe(true);

      const byOwner = runGate(a, alice, agent(carol, { approverScope: 'agent_owner' }));
      const id2 = await pendingId(byOwner);
      expect(
        (
          await a.request('POST', `/api/confirmations/${id2}/decision`, {
            token: alice.token,
            body: { decision: 'approve' },
          })
        ).status,
      ).toBe(403);
      expect((await rowOf(a, alice, id2)).status).toBe('pending');
      expect(
        (
          await a.request('POST', `/api/confirmations/${id2}/decision`, {
            token: carol.token,
            body: { decision: 'reject' },
          })
        ).status,
      ).toBe(200);
      expect((await byOwner.result).allow).toBe(false);
    });

    it('forbid_self_approval: the requester cannot approve (403), another member can', async () => {
      const run = runGate(a, alice, agent(carol, { forbidSelfApproval: true }));
      const id = await pendingId(run);
      const self = await a.request('POST', `/api/confirmations/${id}/decision`, {
        token: alice.token,
        body: { decision: 'approve' },
      });
      expect(self.status).toBe(403);
      expect(self.body.message).toMatch(/self-approval is forbidden/);
      expect((await rowOf(a, alice, id)).status).toBe('pending');
      expect(
        (
          await a.request('POST', `/api/confirmations/${id}/decision`, {
            token: bob.token,
            body: { decision: 'approve' },
          })
        ).status,
      ).toBe(200);
      expect((await run.result).allow).toBe(true);
    });

    it("another org's admin gets 404 for the row, the list and the decision; the row is unchanged", async () => {
      const run = runGate(a, alice, agent(carol));
      const id = await pendingId(run);
      expect(
        (
          await a.request('POST', `/api/confirmations/${id}/decision`, {
            token: mallory.token,
            body: { decision: 'approve' },
          })
        ).status,
      ).toBe(404);
      expect((await a.request('GET', `/api/confirmations/${id}`, { token: mallory.token })).status).toBe(404);
      const theirs = await a.request('GET', '/api/confirmations', { token: mallory.token });
      expect(theirs.body.map((r: any) => r.id)).not.toContain(id);
      expect((await rowOf(a, alice, id)).status).toBe('pending');
      run.abort.abort();
      expect(await run.result).toMatchObject({ allow: false, error: 'expired: the run was cancelled' });
      expect((await rowOf(a, alice, id)).status).toBe('expired');
    });
  });

  it('bad input is a 400 naming the problem; an unknown id is a 404', async () => {
    const run = runGate(a, alice, agent(carol));
    const id = await pendingId(run);
    const bad = await a.request('POST', `/api/confirmations/${id}/decision`, {
      token: bob.token,
      body: { decision: 'maybe' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('decision must be "approve" or "reject"');
    const badStatus = await a.request('GET', '/api/confirmations?status=done', { token: bob.token });
    expect(badStatus.status).toBe(400);
    expect(
      (
        await a.request('POST', `/api/confirmations/${randomUUID()}/decision`, {
          token: bob.token,
          body: { decision: 'approve' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await a.request('POST', `/api/confirmations/not-a-uuid/decision`, {
          token: bob.token,
          body: { decision: 'approve' },
        })
      ).status,
    ).toBe(404);
    expect((await rowOf(a, alice, id)).status).toBe('pending');
    run.abort.abort();
    await run.result;
  });

  it('the list is newest first and filters by status', async () => {
    const r1 = runGate(a, alice, agent(carol));
    const id1 = await pendingId(r1);
    const r2 = runGate(a, alice, agent(carol));
    const id2 = await pendingId(r2);
    const pending = await a.request('GET', '/api/confirmations?status=pending', { token: bob.token });
    const ids = pending.body.map((r: any) => r.id);
    expect(ids.indexOf(id2)).toBeLessThan(ids.indexOf(id1));
    expect(pending.body.every((r: any) => r.status === 'pending')).toBe(true);
    expect(pending.body[0]).toEqual(
      expect.objectContaining({
        run_id: r2.runId,
        call_id: r2.callId,
        tool: 'oa__purchase_pay',
        approver_scope: 'org_members',
        channel_id: 'inbox',
      }),
    );
    r1.abort.abort();
    r2.abort.abort();
    await Promise.all([r1.result, r2.result]);
    const expired = await a.request('GET', '/api/confirmations?status=expired', { token: bob.token });
    expect(expired.body.map((r: any) => r.id)).toEqual(expect.arrayContaining([id1, id2]));
  });

  it('dry run: would require confirmation, writes and sends nothing', async () => {
    const before = (await a.request('GET', '/api/confirmations', { token: bob.token })).body.length;
    const run = runGate(a, alice, agent(carol), { dryRun: true });
    expect(await run.result).toMatchObject({ allow: true, wouldRequireConfirmation: true });
    expect(run.events).toEqual([]);
    expect((await a.request('GET', '/api/confirmations', { token: bob.token })).body.length).toBe(before);
  });

  describe('re-entry for the same run + call (a run resumed after a restart)', () => {
    it('a decided row gives its verdict at once, without a new row or card', async () => {
      const first = runGate(a, alice, agent(carol));
      const id = await pendingId(first);
      await a.request('POST', `/api/confirmations/${id}/decision`, {
        token: bob.token,
        body: { decision: 'reject', reason: 'no' },
      });
      await first.result;
      const again = runGate(a, alice, agent(carol), { runId: first.runId, callId: first.callId });
      expect(await again.result).toMatchObject({ allow: false, error: 'rejected by Bob: no' });
      expect(again.events.map((e) => e.type)).toEqual(['confirmation_resolved']);
      const all = (await a.request('GET', '/api/confirmations', { token: bob.token })).body.filter(
        (r: any) => r.run_id === first.runId,
      );
      expect(all).toHaveLength(1);
    });

    it('a pending row survives the instance that created it and is waited on with its original deadline', async () => {
      const crashed = await startTestApp({}, { databaseUrl: a.databaseUrl });
      const first = runGate(crashed, alice, agent(carol, { timeoutS: 4 }));
      const id = await pendingId(first);
      await crashed.close();
      // The instance went away while waiting: the gate cannot decide (suspend: the run is left for its next driver); the request stays pending.
      expect(await first.result).toMatchObject({ suspend: expect.stringMatching(/shutting down/) });
      expect((await rowOf(a, alice, id)).status).toBe('pending');

      const resumed = runGate(a, alice, agent(carol, { timeoutS: 600 }), { runId: first.runId, callId: first.callId });
      expect(await resumed.result).toMatchObject({ allow: false, error: 'expired after 4 s' });
      expect(resumed.events.map((e) => e.type)).toEqual(['confirmation_resolved']);
    });

    it('a pending row is approved after the restart and the resumed gate allows the call', async () => {
      const crashed = await startTestApp({}, { databaseUrl: a.databaseUrl });
      const first = runGate(crashed, alice, agent(carol));
      const id = await pendingId(first);
      // The card went out and the gate waits, as it would before a real crash.
      await waitsOn(crashed, 1);
      await crashed.close();
      await first.result;
      const waiting = a.app.get(ConfirmationWaiter).waitingCount;
      const resumed = runGate(a, alice, agent(carol), { runId: first.runId, callId: first.callId });
      // The resumed gate found the pending row and waits on it: the decision below wakes it (it does not find it decided).
      await waitsOn(a, waiting + 1);
      expect(
        (
          await b.request('POST', `/api/confirmations/${id}/decision`, {
            token: bob.token,
            body: { decision: 'approve' },
          })
        ).status,
      ).toBe(200);
      expect(await resumed.result).toMatchObject({ allow: true });
    });
  });

  describe('waking waiters across instances', () => {
    it('waiting on A, deciding on B: A wakes through LISTEN/NOTIFY (A polls only once a minute)', async () => {
      const waiter = a.app.get(ConfirmationWaiter);
      expect(waiter.isListening).toBe(true);
      const notified = notificationsOf(waiter);
      for (let i = 0; i < 5; i++) {
        const before = waiter.waitingCount;
        const run = runGate(a, alice, agent(carol));
        const id = await pendingId(run);
        await waitsOn(a, before + 1);
        const res = await b.request('POST', `/api/confirmations/${id}/decision`, {
          token: bob.token,
          body: { decision: 'approve' },
        });
        expect(res.status).toBe(200);
        // A polls once a minute (beyond this test's time limit): only the notification can have woken it.
        expect((await run.result).allow).toBe(true);
        expect(notified).toContain(id);
      }
    });

    it('the LISTEN connection is re-established after the server drops it', async () => {
      const waiter = a.app.get(ConfirmationWaiter);
      const admin = new pg.Client({ connectionString: a.databaseUrl });
      await admin.connect();
      try {
        const killed = await admin.query(
          `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'warden-confirmation-waiter' AND query ILIKE 'LISTEN%'`,
        );
        expect(killed.rowCount).toBeGreaterThanOrEqual(2); // A's and B's listeners
        await until('listener down', () => !waiter.isListening || undefined, 5_000).catch(() => undefined);
        await until('listener back', () => waiter.isListening || undefined, 10_000);
        const notified = notificationsOf(waiter);
        const before = waiter.waitingCount;
        const run = runGate(a, alice, agent(carol));
        const id = await pendingId(run);
        await waitsOn(a, before + 1);
        await b.request('POST', `/api/confirmations/${id}/decision`, {
          token: bob.token,
          body: { decision: 'approve' },
        });
        // Woken through the new connection: A's poll is a minute away.
        expect((await run.result).allow).toBe(true);
        expect(notified).toContain(id);
      } finally {
        await admin.end();
      }
    });

    it('a decision whose notification was lost is caught by the batched poll', async () => {
      const run = runGate(b, alice, agent(carol));
      const id = await pendingId(run);
      const admin = new pg.Client({ connectionString: a.databaseUrl });
      await admin.connect();
      try {
        // Written behind the service's back: no NOTIFY, no in-process event.
        await admin.query(
          `UPDATE confirmation_requests SET status = 'approved', responded_by_name = 'dba', responded_at = now() WHERE id = $1`,
          [id],
        );
      } finally {
        await admin.end();
      }
      expect(await run.result).toMatchObject({ allow: true, sideEffects: ['approved by dba'] });
    });
  });

  describe('chat channels', () => {
    let feishu: HttpFake;
    let feishuMode: 'ok' | 'refuse' = 'ok';

    beforeAll(async () => {
      // Speaks the two Feishu Open API calls the channel makes: tenant token, then send / patch a message.
      feishu = await startHttpFake((req) => {
        if (req.path === '/open-apis/auth/v3/tenant_access_token/internal') {
          return { code: 0, msg: 'ok', tenant_access_token: 't-fake-token', expire: 7200 };
        }
        if (req.method === 'POST' && req.path === '/open-apis/im/v1/messages') {
          if (feishuMode === 'refuse') return { code: 230002, msg: 'Bot/User can NOT be out of the chat.' };
          return { code: 0, msg: 'success', data: { message_id: `om_${req.body.uuid}` } };
        }
        if (req.method === 'PATCH' && req.path.startsWith('/open-apis/im/v1/messages/'))
          return { code: 0, msg: 'success', data: {} };
        return { code: 404, msg: `unexpected ${req.method} ${req.path}` };
      });
    });
    afterAll(async () => feishu?.close());

    async function feishuChannel(config: Record<string, unknown> = {}): Promise<string> {
      const res = await a.request('POST', '/api/channels', {
        token: carol.token,
        body: {
          type: 'feishu',
          name: `approvals-${randomUUID().slice(0, 6)}`,
          config: {
            app_id: 'cli_test',
            app_secret: 'secret-1',
            chat_id: 'oc_chat',
            verification_token: 'vt-1',
            base_url: feishu.url,
            ...config,
          },
        },
      });
      expect(res.status).toBe(201);
      return res.body.id;
    }

    it('card delivery failure: the call is blocked with a clear message and the row can never be approved', async () => {
      const channelId = await feishuChannel();
      feishuMode = 'refuse';
      try {
        const run = runGate(a, alice, agent(carol, { channelId }));
        const result = await run.result;
        expect(result.allow).toBe(false);
        expect(result.error).toMatch(/approval card could not be delivered .*230002/);
        const id = run.events[0].data.confirmation_id;
        expect(run.events.map((e) => e.type)).toEqual(['confirmation_pending', 'confirmation_resolved']);
        const row = await rowOf(a, alice, id);
        expect(row).toMatchObject({ status: 'expired', responded_by: 'system' });
        expect(row.reason).toMatch(/^card delivery failed: /);
        const late = await a.request('POST', `/api/confirmations/${id}/decision`, {
          token: carol.token,
          body: { decision: 'approve' },
        });
        expect(late.status).toBe(409);
        // Re-entering the gate for the same call does not revive it.
        const again = runGate(a, alice, agent(carol, { channelId }), { runId: run.runId, callId: run.callId });
        expect((await again.result).allow).toBe(false);
      } finally {
        feishuMode = 'ok';
      }
    });

    it('an unknown channel id fails closed before anything is recorded', async () => {
      const run = runGate(a, alice, agent(carol, { channelId: randomUUID() }));
      const result = await run.result;
      expect(result.allow).toBe(false);
      expect(result.error).toMatch(/no channel is reachable/);
      expect(run.events).toEqual([]);
    });

    it('a card sent to Feishu is replaced by its decided version after an inbox decision', async () => {
      const channelId = await feishuChannel();
      const run = runGate(a, alice, agent(carol, { channelId }));
      const id = await pendingId(run);
      await until('card sent', () => feishu.requests.find((r) => r.method === 'POST' && r.body?.uuid === id));
      await until('delivery recorded', async () => (await rowOf(a, alice, id)).channel_type === 'feishu' || undefined);
      expect(
        (
          await a.request('POST', `/api/confirmations/${id}/decision`, {
            token: bob.token,
            body: { decision: 'approve' },
          })
        ).status,
      ).toBe(200);
      expect((await run.result).allow).toBe(true);
      const patch = await until('card patched', () =>
        feishu.requests.find((r) => r.method === 'PATCH' && r.path === `/open-apis/im/v1/messages/om_${id}`),
      );
      expect(patch.rawBody).toMatch(/approved|Approved/);
    });

    describe('clicks from a chat app (the decision sink)', () => {
      const click = (
        channelId: string,
        config: Record<string, unknown>,
        confirmationId: string,
        openId: string,
        decision: 'approve' | 'reject' = 'approve',
      ) =>
        a.app.get(ConfirmationService).decideFromChannel({
          channel: { id: channelId, orgId: alice.orgId, type: 'feishu', name: 'approvals', config },
          confirmationId,
          decision,
          actor: { platform: 'feishu', externalId: openId },
        });

      it('with approver_open_ids: only listed open ids, linked to a user, may decide; others get an error and change nothing', async () => {
        const config = { approver_open_ids: ['ou_boss', 'ou_listed_unlinked'] };
        const channelId = await feishuChannel(config);
        const run = runGate(a, alice, agent(carol, { channelId }));
        const id = await pendingId(run);
        const outsider = await click(channelId, config, id, 'ou_random');
        expect(outsider).toMatchObject({
          ok: false,
          message: expect.stringMatching(/not in this channel's approver list/),
        });
        // Listed but linked to nobody: Warden cannot tell who that is (nor rule out the requester), so it decides nothing.
        const unlinked = await click(channelId, config, id, 'ou_listed_unlinked');
        expect(unlinked).toMatchObject({ ok: false, message: expect.stringMatching(/not linked to a Warden user/) });
        expect((await rowOf(a, alice, id)).status).toBe('pending');
        expect(
          (
            await a.request('PUT', '/api/users/bob/identities', {
              token: carol.token,
              body: { feishu_open_id: 'ou_boss' },
            })
          ).status,
        ).toBe(200);
        const boss = await click(channelId, config, id, 'ou_boss');
        expect(boss).toMatchObject({
          ok: true,
          message: 'Approved by Bob',
          decided: { status: 'approved', decidedBy: 'Bob' },
        });
        expect((await run.result).allow).toBe(true);
        const row = await rowOf(a, alice, id);
        expect(row).toMatchObject({
          status: 'approved',
          responded_by_user_id: bob.userId,
          responded_by_open_id: 'ou_boss',
          responded_by_platform: 'feishu',
          approvers: ['channel'],
        });
        const repeat = await click(channelId, config, id, 'ou_boss', 'reject');
        expect(repeat).toMatchObject({
          ok: false,
          message: expect.stringMatching(/already approved/),
          decided: { status: 'approved' },
        });
      });

      it('without a list: the clicker must be linked to a user inside the approver scope', async () => {
        const channelId = await feishuChannel();
        expect(
          (
            await a.request('PUT', '/api/users/bob/identities', {
              token: carol.token,
              body: { feishu_open_id: 'ou_bob' },
            })
          ).status,
        ).toBe(200);
        expect(
          (
            await a.request('PUT', '/api/users/carol/identities', {
              token: carol.token,
              body: { feishu_open_id: 'ou_carol' },
            })
          ).status,
        ).toBe(200);
        const run = runGate(a, alice, agent(carol, { channelId, approverScope: 'org_admins' }));
        const id = await pendingId(run);
        expect(await click(channelId, {}, id, 'ou_stranger')).toMatchObject({
          ok: false,
          message: expect.stringMatching(/not linked/),
        });
        expect(await click(channelId, {}, id, 'ou_bob')).toMatchObject({
          ok: false,
          message: expect.stringMatching(/organisation admins/),
        });
        // A click arriving through another channel is not a click on this card.
        const otherChannel = await feishuChannel();
        expect(await click(otherChannel, {}, id, 'ou_carol')).toMatchObject({
          ok: false,
          message: expect.stringMatching(/not found/),
        });
        expect((await rowOf(a, alice, id)).status).toBe('pending');
        expect(await click(channelId, {}, id, 'ou_carol', 'reject')).toMatchObject({
          ok: true,
          message: 'Rejected by Carol',
        });
        expect(await run.result).toMatchObject({ allow: false, error: 'rejected by Carol' });
        expect(await rowOf(a, alice, id)).toMatchObject({
          responded_by_user_id: carol.userId,
          responded_by_open_id: 'ou_carol',
        });
      });
    });
  });
});
