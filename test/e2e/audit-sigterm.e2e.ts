import { mintDevToken } from '@warden/auth';
import pg from 'pg';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { createTestDatabase } from '../support/test-database.js';

const SECRET = 'audit-sigterm-secret-0123456789abcdef';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Issue 7: SIGTERM to a real server during a burst of connector calls loses no audit row. */
describe('audit log on SIGTERM (server process, PostgreSQL)', () => {
  let oa: HttpFake;
  let server: ServerProcess | undefined;
  let drop: (() => Promise<void>) | undefined;
  /** Released by the fake when the 150th call reaches it: the burst is well under way. */
  let burstUnderWay!: () => void;
  const underWay = new Promise<void>((resolve) => (burstUnderWay = resolve));

  beforeAll(async () => {
    oa = await startHttpFake(async () => {
      if (oa.requests.length === 150) burstUnderWay();
      // A target that takes a moment per call, so the burst is still going when SIGTERM arrives.
      await sleep(15);
      return [{ id: 'PO-1', status: 'open' }];
    });
  });
  afterAll(async () => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    await oa?.close();
    await drop?.().catch(() => undefined);
  });

  it('rows written == calls made', async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    server = await startServerProcess({
      DATABASE_URL: db.url,
      DB_SKIP_MIGRATIONS: '1',
      AUTH_MODE: 'dev',
      AUTH_DEV_SECRET: SECRET,
      SEED_DEMO: 'false',
      APP_ENCRYPTION_KEY: 'audit-sigterm-encryption-key-0123',
      LOG_LEVEL: 'warn',
    });
    const token = await mintDevToken(SECRET, { sub: 'alice', org: 'acme', roles: ['admin'] });
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${server!.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
    expect(
      (
        await api('POST', '/api/connectors', {
          name: 'oa',
          base_url: oa.url,
          actions: [{ name: 'list_purchases', method: 'GET', path: '/purchases' }],
        })
      ).status,
    ).toBe(201);
    const turn = { tool_calls: Array.from({ length: 4 }, () => ({ name: 'oa__list_purchases', args: {} })) };
    const agent = (await (
      await api('POST', '/api/agents', {
        name: 'lister',
        model_config_json: {
          model: { provider: 'scripted', script: [turn, turn, turn, turn, turn, { content: 'listed' }] },
          tools: ['oa__list_purchases'],
          max_iterations: 10,
        },
      })
    ).json()) as { id: string };

    // 30 chats of up to 20 calls each; SIGTERM while they are under way.
    const chats = Array.from({ length: 30 }, () =>
      api('POST', '/api/chat', { agent_id: agent.id, message: 'list' })
        .then((r) => r.text())
        .catch(() => ''),
    );
    await underWay;
    server.child.kill('SIGTERM');
    const code = await server.exited;
    await Promise.all(chats);
    // Nest re-raises the signal after its shutdown hooks: the process ends by SIGTERM, not by a crash.
    expect(code === 0 || server.child.signalCode === 'SIGTERM').toBe(true);
    const made = oa.requests.length;
    expect(made).toBeLessThan(600); // the burst was cut, not finished

    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    const { rows } = await sql.query(
      `SELECT count(*)::int AS n, count(DISTINCT call_id)::int AS calls FROM connector_call_logs WHERE action = 'list_purchases' AND blocked_by IS NULL`,
    );
    await sql.end();
    console.log(`SIGTERM during a burst: ${made} connector calls made, ${rows[0].n} audit rows written`);
    expect(rows[0]).toEqual({ n: made, calls: made });
  }, 90_000);
});
