/**
 * Audit export memory: streams 200,000 connector call rows out of GET /api/audit/connector-calls/export (CSV) from
 * the real app on a real PostgreSQL, sampling this process's memory while the rows go by. The heap must stay flat
 * (bounded by one page, whatever the export's size) and the rows exported must be exactly the rows stored.
 *
 * Uses its own database on the server of TEST_DATABASE_URL, dropped at the end. `npm run bench:export`;
 * BENCH_EXPORT_ROWS sets the number of rows (default 200,000).
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createApp } from '../apps/api/src/bootstrap.js';
import { mintDevToken } from '../libs/auth/src/tokens/dev-token.js';
import { createDataSource } from '../libs/database/src/data-source.js';
import { createBenchDatabase } from './bench-database.js';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 200_000);
const SECRET = 'bench-dev-secret-0123456789abcdef';
/** Heap growth allowed during the export, whatever its size (one page of rows and the socket buffers). */
const FLAT_MB = 32;

const mb = (bytes: number) => bytes / 1024 / 1024;
const db = await createBenchDatabase('export');
let failed = false;
try {
  const app = await createApp({
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    AUTH_MODE: 'dev',
    AUTH_DEV_SECRET: SECRET,
    DATABASE_URL: db.url,
    SEED_DEMO: 'false',
    APP_ENCRYPTION_KEY: 'bench-encryption-key-0123456789abcdef',
  });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  const token = await mintDevToken(SECRET, { sub: 'auditor', org: 'acme', roles: ['admin'] });
  const me = (await (await fetch(`${url}/api/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    org_id: string;
  };

  const seed = createDataSource({ url: db.url, embedded: false, close: () => Promise.resolve() }, 1);
  await seed.initialize();
  await seed.query(
    `INSERT INTO connector_call_logs (org_id, agent_id, user_id, run_id, call_id, surface, tool, connector_name, action, method, url,
       args_digest, status, duration_ms, success, error, created_at, audit_pending)
     SELECT $1, $2, $3, $4, 'call_' || g, 'chat', 'oa__purchase_pay', 'oa', 'purchase_pay', 'POST', 'http://oa.internal/purchases/' || g || '/pay',
       md5(g::text) || md5(g::text), 200, 12, true, CASE WHEN g % 10 = 0 THEN 'upstream said "no", retry later' END,
       now() - (g || ' ms')::interval, false
     FROM generate_series(1, $5) g`,
    [me.org_id, randomUUID(), randomUUID(), randomUUID(), ROWS],
  );
  const [{ n, idsum }] = await seed.query<Array<{ n: number; idsum: string }>>(
    `SELECT count(*)::int AS n, sum(id)::text AS idsum FROM connector_call_logs WHERE org_id = $1`,
    [me.org_id],
  );
  await seed.destroy();

  global.gc?.();
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  let peakRss = before.rss;
  const samples: string[] = [];
  let retainedPeak = mb(before.heapUsed);
  const started = Date.now();
  const res = await fetch(`${url}/api/audit/connector-calls/export?format=csv`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const decoder = new TextDecoder();
  let rest = '';
  let lines = 0;
  let bytes = 0;
  let exportedIdSum = 0n;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    const text = rest + decoder.decode(chunk, { stream: true });
    const parts = text.split('\r\n');
    rest = parts.pop() ?? ''; // split yields at least one part
    for (const line of parts) {
      if (lines++ > 0) exportedIdSum += BigInt(line.slice(0, line.indexOf(',')));
    }
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
    if (samples.length < Math.floor((lines / ROWS) * 4)) {
      // What the export retains (garbage collected first), at each quarter: flat means it does not grow with the rows.
      global.gc?.();
      const live = mb(process.memoryUsage().heapUsed);
      retainedPeak = Math.max(retainedPeak, live);
      samples.push(
        `${Math.round(((lines - 1) / ROWS) * 100)}%: heap ${live.toFixed(0)} MB live, rss ${mb(m.rss).toFixed(0)} MB`,
      );
    }
  }
  const rows = lines - 1;
  await app.close();

  const grewMb = retainedPeak - mb(before.heapUsed);
  console.log(
    `audit export: ${rows} rows, ${mb(bytes).toFixed(1)} MB of CSV in ${Date.now() - started} ms (status ${res.status})`,
  );
  console.log(
    `  memory before: heap ${mb(before.heapUsed).toFixed(0)} MB, rss ${mb(before.rss).toFixed(0)} MB; during: ${samples.join('; ')}`,
  );
  console.log(
    `  live heap growth ${grewMb.toFixed(1)} MB (flat if <= ${FLAT_MB} MB for any size): ${grewMb <= FLAT_MB ? 'OK' : 'NOT FLAT'}; peak heap incl. garbage ${mb(peakHeap).toFixed(0)} MB, peak rss ${mb(peakRss).toFixed(0)} MB`,
  );
  console.log(
    `  rows exported ${rows} / stored ${n}, id checksum ${exportedIdSum === BigInt(idsum) ? 'equal' : 'MISMATCH'}`,
  );
  failed = res.status !== 200 || rows !== n || n !== ROWS || exportedIdSum !== BigInt(idsum) || grewMb > FLAT_MB;
} finally {
  await db.drop();
}
process.exit(failed ? 1 : 0);
