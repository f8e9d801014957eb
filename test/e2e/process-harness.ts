import { mintDevToken } from '@warden/auth';
import pg from 'pg';
import { type FakeOpenAI } from '../fakes/fake-openai.js';
import { type HttpFake } from '../fakes/http-fake.js';
import { startServerProcess, type ServerProcess, type StartOptions } from '../support/server-process.js';
import { until as untilWithin } from '../support/eventually.js';
import { createTestDatabase } from '../support/test-database.js';
import { chatUntil, ChatStream } from './chat-stream.js';
import { parseSse, OA_ACTIONS, type SseEvent } from './runtime-helpers.js';

/**
 * Real app instances as child processes on one PostgreSQL database, for the durability tests: `startProcesses` gives
 * a fresh database and helpers to start, call and kill servers on it; `startHarness` adds a connector `oa` on the
 * given fake, an agent paying purchase orders, and helpers to chat and inspect. Everything started here is killed
 * and dropped by `close()`.
 */
const SECRET = 'faults-dev-secret-0123456789abcdef';

/** Server processes restart within these waits: a longer default than in-process tests. */
export const until = <T>(what: string, probe: Parameters<typeof untilWithin<T>>[1], timeoutMs = 20_000) =>
  untilWithin<T>(what, probe, timeoutMs, 50);

/** A fresh database, and what it takes to start app processes on it and call their API as an admin. */
export interface ProcessHarness {
  env: Record<string, string>;
  token: string;
  sql: pg.Client;
  start: (extra?: Record<string, string>, opts?: StartOptions) => Promise<ServerProcess>;
  api: (server: ServerProcess, method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
  /** Kills every process started here and drops the database. */
  close(): Promise<void>;
}

/** A ProcessHarness with a connector `oa` and an agent paying purchase orders, and helpers to chat with it. */
export interface Harness extends ProcessHarness {
  agentId: string;
  /** POST /api/chat and read the stream only until `stopAt` (then hang up: the run goes on without a client). */
  chatUntil(server: ServerProcess, message: string, stopAt: (e: SseEvent) => boolean): Promise<SseEvent[]>;
  /** POST /api/chat and keep the stream open: the test reads it as far as it needs, then closes it. */
  openChat(server: ServerProcess, message: string): Promise<ChatStream>;
  /** The run's whole story, replayed. */
  story(server: ServerProcess, runId: string): Promise<SseEvent[]>;
}

export async function kill9(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

/** Starts nothing yet: a fresh database (dropped by `close()`) and the env and token to start and call processes. */
export async function startProcesses(opts: { env?: Record<string, string> } = {}): Promise<ProcessHarness> {
  const db = await createTestDatabase();
  const servers: ServerProcess[] = [];
  const env = {
    DATABASE_URL: db.url,
    DB_SKIP_MIGRATIONS: '1',
    AUTH_MODE: 'dev',
    AUTH_DEV_SECRET: SECRET,
    APP_ENCRYPTION_KEY: 'faults-encryption-key-0123456789abcdef',
    LOG_LEVEL: 'warn',
    SEED_DEMO: 'false',
    CONFIRMATION_POLL_MS: '300',
    RUN_LEASE_MS: '3000',
    RUN_RECOVERY_MS: '300',
    WARDEN_LLM_KEY_FAKE: 'sk-fake',
    ...opts.env,
  };
  const token = await mintDevToken(SECRET, { sub: 'alice', org: 'acme', roles: ['admin'] });
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  const start = async (extra: Record<string, string> = {}, opts: StartOptions = {}) => {
    // A loaded CI machine can take a while to boot a server; restarts in fault tests must not fail on that.
    const server = await startServerProcess({ ...env, ...extra }, { timeoutMs: 90_000, ...opts });
    servers.push(server);
    return server;
  };
  const api = async (server: ServerProcess, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const close = async () => {
    for (const s of servers) {
      if (s.child.exitCode === null && s.child.signalCode === null) {
        s.child.kill('SIGCONT');
        s.child.kill('SIGKILL');
      }
    }
    await Promise.all(servers.map((s) => s.exited));
    await sql.end().catch(() => undefined);
    await db.drop().catch(() => undefined);
  };
  return { env, token, sql, start, api, close };
}

export async function startHarness(opts: {
  llm: FakeOpenAI;
  oa: HttpFake;
  env?: Record<string, string>;
  stream?: boolean;
  confirmation?: Record<string, unknown>;
}): Promise<Harness> {
  // The fake model's origin is where the operator's fake key may go (LLM_KEY_ORIGINS).
  const keyOrigin = { LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(opts.llm.baseUrl).origin}` };
  const base = await startProcesses({ env: { ...keyOrigin, ...opts.env } });
  const { token, api } = base;
  const first = await base.start();
  expect(
    (await api(first, 'POST', '/api/connectors', { name: 'oa', base_url: opts.oa.url, actions: OA_ACTIONS })).status,
  ).toBe(201);
  const agent = await api(first, 'POST', '/api/agents', {
    name: 'payer',
    instructions: 'You pay purchase orders.',
    model_config_json: {
      model: {
        provider: 'openai',
        base_url: opts.llm.baseUrl,
        model: 'fake-1',
        api_key_env: 'WARDEN_LLM_KEY_FAKE',
        stream: opts.stream ?? false,
      },
      tools: ['oa__purchase_pay'],
      confirmation: { timeout_s: 120, ...opts.confirmation },
    },
  });
  expect(agent.status).toBe(201);
  // The set-up server runs the harness's env: the test's first start() without extra env takes it over (one boot less
  // per test); a start with extra env (another INSTANCE_ID...) stops it first, as before.
  let setUp: ServerProcess | undefined = first;
  const start = async (extra: Record<string, string> = {}, startOpts: StartOptions = {}) => {
    const idle = setUp;
    setUp = undefined;
    if (idle && Object.keys(extra).length === 0 && !startOpts.main) return idle;
    await idle?.stop();
    return base.start(extra, startOpts);
  };

  const chat = (message: string) => ({ agent_id: agent.body.id, message });
  const openChat = (server: ServerProcess, message: string) => ChatStream.open(server.url, token, chat(message));
  const chatUntilIn = (server: ServerProcess, message: string, stopAt: (e: SseEvent) => boolean) =>
    chatUntil(server.url, token, chat(message), stopAt);
  const story = async (server: ServerProcess, runId: string) => {
    const res = await fetch(`${server.url}/api/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': '0' },
    });
    return parseSse(await res.text()).events;
  };
  return { ...base, start, agentId: agent.body.id, chatUntil: chatUntilIn, openChat, story };
}

/** "Pay PO-17 amount 100" -> that payment; once a tool result is the last message -> the final answer. */
export function payingModel(body: { messages: Array<{ role: string; content: string | null }> }) {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  const match = /Pay (PO-[\w-]+) amount (\d+)/.exec(user);
  const last = body.messages.at(-1);
  if (last?.role === 'tool') return { content: `Finished ${match?.[1]}: ${last.content}` };
  return {
    tool_calls: [{ name: 'oa__purchase_pay', args: { id: match?.[1] ?? 'PO-?', amount: Number(match?.[2] ?? 0) } }],
  };
}

/** The calls the fake connector received, by purchase order. */
export function paymentsByPo(oa: HttpFake): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of oa.requests) counts.set(r.path, (counts.get(r.path) ?? 0) + 1);
  return counts;
}

/** Event ids 1..n without a gap, `done` last and only once. */
export function expectWellFormedStory(events: SseEvent[]): void {
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  expect(events.filter((e) => e.event === 'done' && e.data.run_id === events[0]?.data.run_id)).toHaveLength(1);
  expect(events.at(-1)!.event).toBe('done');
}

/** A statement held inside the database (see `armStatementHold`): which backends wait there, and the release. */
export interface StatementHold {
  waiting: () => Promise<number[]>;
  /** Terminates the held backends (their statements fail as a dropped connection would), then lets later ones through. */
  disarm: () => Promise<void>;
}

/**
 * A crash point inside the database: the next statements that `event` (INSERT/UPDATE) a row of `table` matching
 * `when` stop inside that statement (on an advisory lock this client holds), so the test can kill the server there or
 * terminate those backends: exactly "killed between the statements" / "the connection dropped here", without timing.
 */
export async function armStatementHold(
  sql: pg.Client,
  opts: { table: string; event: 'INSERT' | 'UPDATE'; when: string; lockKey?: number },
): Promise<StatementHold> {
  const lockKey = opts.lockKey ?? 4242;
  const name = `test_hold_${opts.table}`;
  await sql.query(`SELECT pg_advisory_lock($1)`, [lockKey]);
  await sql.query(`CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_xact_lock(${lockKey}); RETURN NEW; END $$`);
  await sql.query(
    `CREATE TRIGGER ${name} BEFORE ${opts.event} ON ${opts.table} FOR EACH ROW WHEN (${opts.when}) EXECUTE FUNCTION ${name}()`,
  );
  const waiting = async () =>
    (
      await sql.query(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`, [lockKey])
    ).rows.map((r) => r.pid as number);
  return {
    waiting,
    disarm: async () => {
      for (const pid of await waiting()) await sql.query(`SELECT pg_terminate_backend($1)`, [pid]);
      await sql.query(`DROP TRIGGER IF EXISTS ${name} ON ${opts.table}`);
      await sql.query(`SELECT pg_advisory_unlock($1)`, [lockKey]);
    },
  };
}

/** The crash point "inside the transaction that moves an agent run to `status`". */
export function armCrashPoint(sql: pg.Client, status: string, lockKey = 4242): Promise<StatementHold> {
  return armStatementHold(sql, {
    table: 'agent_runs',
    event: 'UPDATE',
    when: `NEW.status = '${status}' AND OLD.status IS DISTINCT FROM NEW.status`,
    lockKey,
  });
}
