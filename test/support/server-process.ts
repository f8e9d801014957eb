import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync, readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'dist/apps/api/src/main.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.tsx?$/.test(entry.name))
      newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Builds dist/ (server and console) when it is missing or older than the sources, so process tests run the current code. */
export function ensureBuilt(): void {
  const stale =
    !existsSync(MAIN) ||
    !existsSync(path.join(ROOT, 'dist/console/index.html')) ||
    statSync(MAIN).mtimeMs < Math.max(newestMtime(path.join(ROOT, 'apps')), newestMtime(path.join(ROOT, 'libs')));
  if (stale) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * A port that is free now, below the kernel's ephemeral range (32768+), so that outgoing connections of other
 * processes cannot take it between this check and the server's listen.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 10000 + Math.floor(Math.random() * 22000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Starts `node dist/apps/api/src/main.js` as a real child process and waits for /api/health. */
export interface StartOptions {
  timeoutMs?: number;
  nodeArgs?: string[];
  /** Another build's entry point (a next release, test/support/next-release.ts); the current dist/ by default. */
  main?: string;
}

export async function startServerProcess(env: Record<string, string>, opts: StartOptions = {}): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, opts);
    } catch (err) {
      // Another process took the chosen port meanwhile: choose another (only when the caller did not fix it).
      if (env.PORT || attempt >= 3 || !(err as Error).message.includes('EADDRINUSE')) throw err;
    }
  }
}

async function startOnce(env: Record<string, string>, opts: StartOptions): Promise<ServerProcess> {
  ensureBuilt();
  const port = env.PORT ?? String(await freePort());
  let out = '';
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.main ?? MAIN], {
    cwd: ROOT,
    // The production build as deployed, except for two explicit test allowances: dev tokens (the tests pass a
    // 32+ char AUTH_DEV_SECRET) and loopback egress (the fakes listen on 127.0.0.1).
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      AUTH_ALLOW_DEV_IN_PRODUCTION: '1',
      EGRESS_ALLOW: '127.0.0.1/32',
      ...env,
      PORT: port,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${out}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become healthy:\n${out}`);
    }
    // A short interval: every process test waits here at least once per server it starts.
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    child,
    url,
    output: () => out,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the server entry point expecting it to fail at boot; returns its exit code and output. */
export async function bootExpectingFailure(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  ensureBuilt();
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, output: out };
}
