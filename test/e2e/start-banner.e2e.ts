import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, freePort, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { until } from '../support/eventually.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * A newcomer's terminal after `npm start`: logs are JSON lines when stdout is not a terminal, and the banner with the
 * console URL and the dev sign-in hint is the last thing printed (logs are written synchronously, before it).
 */
let server: ServerProcess;
let drop: () => Promise<void>;
let dbUrl: string;

beforeAll(async () => {
  const db = await createTestDatabase();
  drop = db.drop;
  dbUrl = db.url;
  server = await startServerProcess({
    DATABASE_URL: db.url,
    DB_SKIP_MIGRATIONS: '1',
    SEED_DEMO: 'true',
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    AUTH_DEV_SECRET: 'banner-dev-secret-0123456789',
    APP_ENCRYPTION_KEY: 'banner-encryption-key-0123456789',
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await drop?.();
});

it('prints JSON log lines, then the console URL and the dev sign-in hint last', async () => {
  await until('the start banner', () => server.output().includes('Dev sign-in:'));
  const lines = server.output().trimEnd().split('\n');
  const bannerAt = lines.findIndex((l) => l.includes('Warden console:'));
  expect(lines[bannerAt]).toContain(`Warden console: ${server.url}/`);
  expect(lines.slice(bannerAt + 1).join('\n')).toMatch(
    /^ {2}Dev sign-in: .*user "demo-admin", org "demo", role "admin"/,
  );
  expect(lines.slice(bannerAt + 1).every((l) => !l.startsWith('{'))).toBe(true);
  const logs = lines.slice(0, bannerAt).filter((l) => l.startsWith('{'));
  expect(logs.length).toBeGreaterThan(3);
  for (const l of logs) expect(() => JSON.parse(l)).not.toThrow();
  expect(logs.some((l) => JSON.parse(l).msg?.includes('Nest application successfully started'))).toBe(true);
}, 30_000);

const jsonLogs = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg?: string; context?: string; req?: { url?: string } });

it('prints the banner once, with no route warning and no token in the logs', async () => {
  await until('the start banner', () => server.output().includes('Dev sign-in:'));
  const out = server.output();
  expect(out.split('Warden console:').length - 1).toBe(1);
  expect(out.split('Warden is running at').length - 1).toBe(1);
  expect(out).not.toMatch(/LegacyRouteConverter|Unsupported route path/);
  expect(jsonLogs(out).some((l) => l.msg?.includes('export TOKEN='))).toBe(false);
}, 30_000);

it('logs an API request as one JSON line and a console file request not at all', async () => {
  const asset = readdirSync(path.resolve(import.meta.dirname, '../../dist/console/assets')).find((f) =>
    f.endsWith('.js'),
  );
  expect((await fetch(`${server.url}/`)).status).toBe(200);
  expect((await fetch(`${server.url}/assets/${asset}`)).status).toBe(200);
  expect((await fetch(`${server.url}/api/me`)).status).toBe(401);
  // Written synchronously in request order: once /api/me is logged, the two before it would have been too.
  await until('the /api/me request log', () => jsonLogs(server.output()).some((l) => l.req?.url === '/api/me'));
  const requestLogs = jsonLogs(server.output()).filter((l) => l.req);
  expect(requestLogs.map((l) => l.req?.url)).toEqual(['/api/me']);
}, 30_000);

it('on an embedded database, says it is starting it before the slow part, not after', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'warden-embedded-'));
  const port = await freePort();
  const main = path.resolve(import.meta.dirname, '../../dist/apps/api/src/main.js');
  const child = spawn(process.execPath, [main], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: String(port),
      PGLITE_DIR: path.join(dir, 'pglite'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Each chunk as it arrived: progress shown only together with the rest of the boot logs would be no progress.
  const chunks: string[] = [];
  child.stdout.on('data', (d: Buffer) => chunks.push(d.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    await until(
      'the start banner on the embedded database',
      () => chunks.join('').includes('Warden console:'),
      120_000,
    );
    const chunkOf = (re: RegExp) => chunks.findIndex((c) => re.test(c));
    const progress = chunkOf(/embedded database/i);
    expect(progress).toBeGreaterThanOrEqual(0);
    expect(chunkOf(/migration/i)).toBeGreaterThanOrEqual(progress);
    expect(progress).toBeLessThan(chunkOf(/Nest application successfully started/));
    const out = chunks.join('');
    // Not a TTY here: the progress lines are JSON like every other log line.
    const progressLine = out.split('\n').find((l) => /embedded database/i.test(l)) ?? '';
    expect(JSON.parse(progressLine)).toMatchObject({ level: 30, context: 'Database' });
    expect(out.split('Warden console:').length - 1).toBe(1);
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}, 150_000);

// eslint-disable-next-line no-control-regex
const withoutColours = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '');

it('on a terminal (a pty from script(1)) the logs are pretty, not JSON, and the banner is still last', async () => {
  ensureBuilt();
  const port = await freePort();
  const main = path.resolve(import.meta.dirname, '../../dist/apps/api/src/main.js');
  const child = spawn('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(main)}`, '/dev/null'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: {
      PATH: process.env.PATH ?? '',
      TERM: 'xterm',
      DATABASE_URL: dbUrl,
      DB_SKIP_MIGRATIONS: '1',
      SEED_DEMO: 'true',
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: String(port),
      AUTH_DEV_SECRET: 'banner-dev-secret-0123456789',
      APP_ENCRYPTION_KEY: 'banner-encryption-key-0123456789',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    await until('the start banner on a terminal', () => out.includes('Dev sign-in:'), 30_000);
    const plain = withoutColours(out);
    expect(plain).toMatch(/INFO.*Nest application successfully started/);
    expect(plain).not.toMatch(/^\{"level"/m);
    expect(plain).toMatch(/^\d\d:\d\d:\d\d INFO +NestApplication +Nest application successfully started$/m);
    // Nest's wiring report (~140 lines: a module or a route each) would push the banner off the screen.
    expect(plain).not.toMatch(/dependencies initialized|Mapped \{/);
    expect(plain.split('Warden console:').length - 1).toBe(1);
    expect(plain.trimEnd().split('\n').slice(-2)[0]).toMatch(/Dev sign-in:/);
    // A request afterwards is one short line under the banner, not a screenful of headers.
    expect((await fetch(`http://127.0.0.1:${port}/api/me`)).status).toBe(401);
    await until('the /api/me line', () => withoutColours(out).includes('GET /api/me 401'));
    const afterBanner = withoutColours(out).split('Set AUTH_MODE=oidc for real users.')[1];
    expect(afterBanner.trim().split('\n')).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d INFO +GET \/api\/me 401 \d+ms$/),
    ]);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}, 45_000);
