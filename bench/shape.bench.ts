/**
 * #30 shape: how many product files one gated chat executes (target ≤ 60). A built server runs three gated chats to
 * warm up, then V8 precise coverage (bench/coverage-preload.cjs) records one more — the chat, its approval through
 * the API and the rest of the run to `done` — and this prints the files under apps/ and libs/ with at least one
 * function called, by library.
 *
 *   npm run build && npm run bench:shape
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startPayBenchApp, type PayBenchApp } from './pay-bench-app.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const PRELOAD = path.join(import.meta.dirname, 'coverage-preload.cjs');
const OUT = path.join(tmpdir(), `warden-shape-${process.pid}.json`);

interface ScriptCoverage {
  url: string;
  functions: Array<{ functionName: string; ranges: Array<{ count: number }> }>;
}

async function printed(app: PayBenchApp, line: string, seen: number): Promise<void> {
  while (app.server.output().split(line).length - 1 < seen) await new Promise((r) => setTimeout(r, 50));
}

/** Once more when the server closed an idle kept-alive connection just as it was reused (a loaded machine). */
async function retried<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw err;
    return call();
  }
}

async function gatedChat(app: PayBenchApp): Promise<void> {
  const abort = new AbortController();
  const text = await app.chat('pay amount 60000', 'confirmation_pending', abort);
  abort.abort();
  const id = /"confirmation_id":"([^"]+)"/.exec(text)?.[1];
  if (!id) throw new Error(`no approval request in:\n${text}`);
  await retried(() => app.api('POST', `/api/confirmations/${id}/decision`, { decision: 'approve' }));
  const run = /"run_id":"([^"]+)"/.exec(text)?.[1];
  if (!run) throw new Error(`no run id in:\n${text}`);
  for (;;) {
    const { status } = await retried(() => app.api<{ status: string }>('GET', `/api/runs/${run}`));
    if (status === 'completed') return;
    if (status !== 'running' && status !== 'waiting') throw new Error(`run ended ${status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const app = await startPayBenchApp('shape', { nodeArgs: ['--require', PRELOAD], env: { COVERAGE_OUT: OUT } });
try {
  for (let i = 0; i < 3; i++) await gatedChat(app);
  app.server.child.kill('SIGWINCH');
  await printed(app, '[coverage] started', 1);
  await gatedChat(app);
  app.server.child.kill('SIGWINCH');
  await printed(app, '[coverage] written', 1);
  const scripts = JSON.parse(readFileSync(OUT, 'utf8')) as ScriptCoverage[];
  const dist = `file://${path.join(ROOT, 'dist')}/`;
  const files = scripts
    .filter((s) => s.url.startsWith(dist) && /^(apps|libs)\//.test(s.url.slice(dist.length)))
    .filter((s) => s.functions.some((f) => f.ranges[0]?.count > 0))
    .map((s) => s.url.slice(dist.length).replace(/\.js$/, '.ts'))
    .sort();
  const byLib = new Map<string, string[]>();
  for (const f of files) {
    const lib = f.split('/').slice(0, 2).join('/');
    byLib.set(lib, [...(byLib.get(lib) ?? []), f]);
  }
  console.log(`one gated chat (chat, approval, run to done) executed ${files.length} product files (target <= 60):`);
  for (const [lib, list] of byLib)
    console.log(`  ${lib}: ${list.length}\n    ${list.map((f) => path.basename(f)).join(', ')}`);
} catch (err) {
  console.error(`server output:\n${app.server.output().slice(-4000)}`);
  throw err;
} finally {
  await app.close();
}
