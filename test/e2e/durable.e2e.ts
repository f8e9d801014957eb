import { mintDevToken } from '@warden/auth';
import pg from 'pg';
import { startFakeOpenAI, type ChatRequestBody, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { sleep, until as untilWithin } from '../support/eventually.js';
import { createTestDatabase } from '../support/test-database.js';
import { chatUntil } from './chat-stream.js';
import { parseSse, OA_ACTIONS, type SseEvent } from './runtime-helpers.js';

/**
 * Durable runs (issue 5) against real server processes on PostgreSQL: kill -9 / SIGTERM and restart, two instances
 * on one database, a connector call in flight when the server dies, 200 runs waiting for approval.
 */
const SECRET = 'durable-dev-secret-0123456789abcdef';
/** Server processes restart within these waits: a longer default than in-process tests. */
const until = <T>(what: string, probe: Parameters<typeof untilWithin<T>>[1], timeoutMs = 20_000) =>
  untilWithin<T>(what, probe, timeoutMs, 50);

/** Concurrency-limited map. */
async function pool<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

/** The id in "Pay PO-17" / the model's reply script: pay once, then answer. */
function payingModel(body: ChatRequestBody) {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  const match = /Pay (PO-\d+) amount (\d+)/.exec(user);
  const tool = [...body.messages].reverse().find((m) => m.role === 'tool');
  if (tool) return { content: `Finished ${match?.[1]}: ${tool.content}` };
  return {
    tool_calls: [{ name: 'oa__purchase_pay', args: { id: match?.[1] ?? 'PO-?', amount: Number(match?.[2] ?? 0) } }],
  };
}

describe('durable runs: restarts, several instances, in-flight calls (server processes, PostgreSQL)', () => {
  let llm: FakeOpenAI;
  let oa: HttpFake;
  let oaDelayMs = 0;
  const servers: ServerProcess[] = [];
  const drops: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    llm = await startFakeOpenAI(payingModel);
    oa = await startHttpFake(async (req) => {
      // A slow target on purpose: the call is still in flight when the test kills its caller.
      if (oaDelayMs) await sleep(oaDelayMs);
      return { paid: req.path.split('/')[2], amount: (req.body as { amount?: number })?.amount };
    });
  });
  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await llm?.close();
    await oa?.close();
    for (const drop of drops) await drop().catch(() => undefined);
  });
  beforeEach(() => {
    oa.requests.length = 0;
    oaDelayMs = 0;
  });

  interface Env {
    db: string;
    env: Record<string, string>;
    token: string;
    sql: pg.Client;
  }

  /** A fresh database, an admin token, a connector and an agent whose payments over 50 000 need approval. */
  async function setup(
    confirmation: Record<string, unknown> = {},
  ): Promise<Env & { first: ServerProcess; agentId: string }> {
    const db = await createTestDatabase();
    drops.push(db.drop);
    const env = {
      DATABASE_URL: db.url,
      DB_SKIP_MIGRATIONS: '1',
      AUTH_MODE: 'dev',
      AUTH_DEV_SECRET: SECRET,
      APP_ENCRYPTION_KEY: 'durable-encryption-key-0123456789abcdef',
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'false',
      CONFIRMATION_POLL_MS: '300',
      RUN_LEASE_MS: '3000',
      RUN_RECOVERY_MS: '300',
      WARDEN_LLM_KEY_FAKE: 'sk-fake',
      LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}`,
      // The followers gauge is read from /metrics, off in production without a token.
      METRICS_PUBLIC: '1',
    };
    const first = await start(env);
    const token = await mintDevToken(SECRET, { sub: 'alice', org: 'acme', roles: ['admin'] });
    const connector = await api(first, 'POST', '/api/connectors', token, {
      name: 'oa',
      base_url: oa.url,
      actions: OA_ACTIONS,
    });
    expect(connector.status).toBe(201);
    const agent = await api(first, 'POST', '/api/agents', token, {
      name: 'payer',
      instructions: 'You pay purchase orders.',
      model_config_json: {
        model: {
          provider: 'openai',
          base_url: llm.baseUrl,
          model: 'fake-1',
          api_key_env: 'WARDEN_LLM_KEY_FAKE',
          stream: false,
        },
        tools: ['oa__purchase_pay'],
        confirmation: { timeout_s: 120, ...confirmation },
      },
    });
    expect(agent.status).toBe(201);
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    drops.unshift(() => sql.end());
    return { db: db.url, env, token, sql, first, agentId: agent.body.id };
  }

  async function start(env: Record<string, string>, extra: Record<string, string> = {}): Promise<ServerProcess> {
    const server = await startServerProcess({ ...env, ...extra });
    servers.push(server);
    return server;
  }

  async function kill9(server: ServerProcess): Promise<void> {
    server.child.kill('SIGKILL');
    await server.exited;
  }

  async function api(server: ServerProcess, method: string, path: string, token: string, body?: unknown) {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  const pendingChat = async (server: ServerProcess, token: string, agentId: string, po: string, amount = 60000) => {
    const events = await chatUntil(
      server.url,
      token,
      { agent_id: agentId, message: `Pay ${po} amount ${amount}` },
      (e) => e.event === 'confirmation_pending',
    );
    return {
      runId: events[0].data.run_id as string,
      confirmationId: events.find((e) => e.event === 'confirmation_pending')!.data.confirmation_id as string,
      events,
    };
  };

  /** The run event streams a server is following right now (its /metrics gauge). */
  async function followers(server: ServerProcess): Promise<number> {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    return Number(/^warden_event_log_followers (\d+)/m.exec(text)?.[1] ?? NaN);
  }

  async function runStatus(sql: pg.Client, runId: string): Promise<string> {
    return (await sql.query(`SELECT status FROM agent_runs WHERE id = $1`, [runId])).rows[0].status;
  }

  async function story(server: ServerProcess, token: string, runId: string, lastEventId = 0): Promise<SseEvent[]> {
    const res = await fetch(`${server.url}/api/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': String(lastEventId) },
    });
    return parseSse(await res.text()).events;
  }

  it('1. kill -9 while waiting for approval, restart, approve in the inbox: the tool runs exactly once and the run completes', async () => {
    const { env, token, sql, first, agentId } = await setup();
    const { runId, confirmationId } = await pendingChat(first, token, agentId, 'PO-1');
    expect(await runStatus(sql, runId)).toBe('waiting');
    await kill9(first);

    const second = await start(env);
    const approved = await api(second, 'POST', `/api/confirmations/${confirmationId}/decision`, token, {
      decision: 'approve',
    });
    expect(approved.status).toBe(200);
    await until('the run completes after the restart', async () => (await runStatus(sql, runId)) === 'completed');
    const events = await story(second, token, runId);
    await second.stop(); // a barrier: a graceful stop settles every drive, so a second payment would have been made
    expect(oa.requests).toHaveLength(1);
    expect(oa.requests[0].path).toBe('/purchases/PO-1/pay');

    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    const types = events.map((e) => e.event);
    const order = [
      'run',
      'tool_call',
      'confirmation_pending',
      'confirmation_resolved',
      'observation',
      'answer',
      'done',
    ].map((t) => types.indexOf(t));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const call = events.find((e) => e.event === 'tool_call')!.data;
    expect(oa.requests[0].headers['idempotency-key']).toBe(call.call_id);
    expect(events.find((e) => e.event === 'confirmation_resolved')!.data).toMatchObject({
      status: 'approved',
      confirmation_id: confirmationId,
    });
    expect(events.find((e) => e.event === 'observation')!.data).toMatchObject({
      blocked: false,
      call_id: call.call_id,
    });
    expect(events.at(-1)!.data).toMatchObject({ status: 'completed', run_id: runId });
    expect(types.filter((t) => t === 'tool_interrupted')).toHaveLength(0);
  }, 60_000);

  it('2a. reject after a kill -9 and restart: blocked, the connector never called', async () => {
    const { env, token, sql, first, agentId } = await setup();
    const { runId, confirmationId } = await pendingChat(first, token, agentId, 'PO-2');
    await kill9(first);
    const second = await start(env);
    expect(
      (
        await api(second, 'POST', `/api/confirmations/${confirmationId}/decision`, token, {
          decision: 'reject',
          reason: 'not this month',
        })
      ).status,
    ).toBe(200);
    await until('the run ends', async () => (await runStatus(sql, runId)) === 'completed');
    const events = await story(second, token, runId);
    expect(events.find((e) => e.event === 'observation')!.data).toMatchObject({
      blocked: true,
      blocked_by: 'confirmation_gate',
    });
    expect(events.find((e) => e.event === 'observation')!.data.content).toMatch(/rejected by .*not this month/);
    await second.stop(); // a barrier: every drive settled
    expect(oa.requests).toHaveLength(0);
  }, 60_000);

  it('2b. the approval expires while the server is down: blocked after the restart, never run, a late approval is refused', async () => {
    const { env, token, sql, first, agentId } = await setup({ timeout_s: 2 });
    const { runId, confirmationId, events: before } = await pendingChat(first, token, agentId, 'PO-3');
    await kill9(first);
    await until(
      'the deadline passes',
      () =>
        Date.now() > new Date(before.find((e) => e.event === 'confirmation_pending')!.data.expires_at).getTime() + 200,
    );
    const second = await start(env);
    await until('the run ends', async () => (await runStatus(sql, runId)) === 'completed');
    const events = await story(second, token, runId);
    expect(events.find((e) => e.event === 'confirmation_resolved')!.data).toMatchObject({ status: 'expired' });
    expect(events.find((e) => e.event === 'observation')!.data).toMatchObject({
      blocked: true,
      blocked_by: 'confirmation_gate',
    });
    const late = await api(second, 'POST', `/api/confirmations/${confirmationId}/decision`, token, {
      decision: 'approve',
    });
    expect(late.status).toBe(409);
    await second.stop(); // a barrier: every drive settled
    expect(oa.requests).toHaveLength(0);
  }, 60_000);

  it('4. kill -9 while the connector call is in flight: after recovery the call is not repeated, and the story says so', async () => {
    const { env, token, sql, first, agentId } = await setup();
    oaDelayMs = 4000;
    const events = await chatUntil(
      first.url,
      token,
      { agent_id: agentId, message: 'Pay PO-4 amount 100' },
      (e) => e.event === 'tool_call',
    );
    const runId = events[0].data.run_id as string;
    const callId = events.find((e) => e.event === 'tool_call')!.data.call_id as string;
    await until('the connector receives the call', () => oa.requests.length === 1);
    await kill9(first);
    oaDelayMs = 0;
    const second = await start(env);
    await until('the run ends after recovery', async () => (await runStatus(sql, runId)) === 'completed');
    const all = await story(second, token, runId);
    await second.stop(); // a barrier: every drive settled, so a retried call would have reached the target
    expect(oa.requests).toHaveLength(1);
    const interrupted = all.find((e) => e.event === 'tool_interrupted')!.data;
    expect(interrupted).toMatchObject({
      call_id: callId,
      tool: 'oa__purchase_pay',
      idempotency_key: callId,
      retried: false,
    });
    expect(interrupted.message).toMatch(
      new RegExp(`server stopped while this call was in flight; it was not retried.*Idempotency-Key ${callId}`),
    );
    expect(all.find((e) => e.event === 'observation')!.data).toMatchObject({ call_id: callId, interrupted: true });
    const row = (await sql.query(`SELECT status, error FROM tool_calls WHERE call_id = $1`, [callId])).rows[0];
    expect(row).toEqual({ status: 'failed', error: 'interrupted' });
    // The model was told, in the observation it read next.
    const told = llm.requests.find((r) => r.messages.some((m) => m.role === 'tool' && m.tool_call_id === callId));
    expect(told!.messages.find((m) => m.role === 'tool')!.content).toMatch(/not retried/);
  }, 60_000);

  it('3. two instances: the run parks on A, the decision arrives on B, which continues it at once; SSE reattached on B sees the rest', async () => {
    const { env, token, sql, first, agentId } = await setup();
    // B is the set-up server (one boot less): it only needs to be another instance than A.
    const b = first;
    // A hears about decisions only through LISTEN/NOTIFY (its poll is a minute away).
    const a = await start(env, { INSTANCE_ID: 'instance-a', CONFIRMATION_POLL_MS: '60000' });
    const { runId, confirmationId, events: seen } = await pendingChat(a, token, agentId, 'PO-5');
    // Parked: A holds nothing for it (no lease, no waiter) once the card is out.
    await until('the run parked', async () => {
      const row = (await sql.query(`SELECT locked_by, parked_on FROM agent_runs WHERE id = $1`, [runId])).rows[0];
      return row.locked_by === null && row.parked_on?.length === 1;
    });
    const reattached = story(b, token, runId, seen.at(-1)!.id);
    // The stream on B is live (following the run) before the decision, so it sees the rest as it happens.
    await until('B follows the run', async () => (await followers(b)) === 1);
    expect(
      (await api(b, 'POST', `/api/confirmations/${confirmationId}/decision`, token, { decision: 'approve' })).status,
    ).toBe(200);
    // B took the decision: it claims the run and continues it (the latency is a bench figure).
    await until('the connector is called', () => oa.requests.length === 1);
    const rest = await reattached;
    expect(rest[0].id).toBe(seen.at(-1)!.id + 1);
    expect(rest.map((e) => e.event)).toEqual(
      expect.arrayContaining(['confirmation_resolved', 'observation', 'answer', 'done']),
    );
    expect(rest.at(-1)!.data).toMatchObject({ status: 'completed', run_id: runId });
    expect(await runStatus(sql, runId)).toBe('completed');
    await Promise.all([a.stop(), b.stop()]);
  }, 60_000);

  it('5. 200 runs waiting for approval, SIGTERM + restart, approve all: 200 completions, 200 connector calls, none twice', async () => {
    const { env, token, sql, first, agentId } = await setup();
    const pos = Array.from({ length: 200 }, (_, i) => `PO-${1000 + i}`);
    const started = await pool(pos, 20, (po) => pendingChat(first, token, agentId, po));
    // The run turns `waiting` just after its confirmation_pending event is written.
    await until(
      '200 waiting runs',
      async () =>
        Number((await sql.query(`SELECT count(*) FROM agent_runs WHERE status = 'waiting'`)).rows[0].count) === 200,
    );
    const stopAt = Date.now();
    await first.stop('SIGTERM'); // Nest re-raises the signal once shut down, so the exit code is null
    console.log(`graceful stop with 200 waiting runs: ${Date.now() - stopAt} ms`);
    // Nothing was blocked by the shutdown: every call is pending again, every lease released.
    expect((await sql.query(`SELECT status, count(*)::int AS n FROM tool_calls GROUP BY status`)).rows).toEqual([
      { status: 'pending', n: 200 },
    ]);
    expect(Number((await sql.query(`SELECT count(*) FROM agent_runs WHERE lease_until > now()`)).rows[0].count)).toBe(
      0,
    );

    const second = await start(env);
    const t0 = Date.now();
    const decisions = await pool(started, 20, (r) =>
      api(second, 'POST', `/api/confirmations/${r.confirmationId}/decision`, token, { decision: 'approve' }),
    );
    expect(decisions.every((d) => d.status === 200)).toBe(true);
    await until(
      '200 completions',
      async () =>
        Number((await sql.query(`SELECT count(*) FROM agent_runs WHERE status = 'completed'`)).rows[0].count) === 200,
      60_000,
    );
    console.log(`200 approvals after restart -> 200 completions in ${Date.now() - t0} ms`);
    await second.stop(); // a barrier: every drive settled, so a second payment would have reached the target
    expect(oa.requests).toHaveLength(200);
    expect(new Set(oa.requests.map((r) => r.headers['idempotency-key'])).size).toBe(200);
    expect(new Set(oa.requests.map((r) => r.path))).toEqual(new Set(pos.map((po) => `/purchases/${po}/pay`)));
  }, 150_000);
});
