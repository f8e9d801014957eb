/**
 * A CPU profile of the server over PROFILE_RUNS sequential chat runs (model -> one connector call -> answer), for
 * finding where a run's platform overhead goes: `npm run build && node --import @swc-node/register/esm-register
 * bench/profile-run.ts`; writes a .cpuprofile under PROFILE_DIR (default /tmp/warden-profile) and prints the top
 * self-time functions.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { startPayBenchApp } from './pay-bench-app.js';

const RUNS = Number(process.env.PROFILE_RUNS ?? 300);
const DIR = process.env.PROFILE_DIR ?? '/tmp/warden-profile';
const GATED = process.env.PROFILE_GATED === '1';
/** PROFILE_CPU=0: no profiler (an A/B of timings without its overhead). */
const CPU = process.env.PROFILE_CPU !== '0';
mkdirSync(DIR, { recursive: true });
const app = await startPayBenchApp('profile', {
  env: {
    NODE_ENV: 'production',
    AUTH_ALLOW_DEV_IN_PRODUCTION: '1',
    LOG_LEVEL: 'warn',
    // A/B of parking: RUN_PARK_ON_APPROVAL=false keeps waiting runs in process.
    ...(process.env.RUN_PARK_ON_APPROVAL ? { RUN_PARK_ON_APPROVAL: process.env.RUN_PARK_ON_APPROVAL } : {}),
  },
  nodeArgs: CPU ? ['--cpu-prof', `--cpu-prof-dir=${DIR}`] : [],
});
/** A run that stops for an approval; the approval; ms from the decision's POST to the connector call (PROFILE_GATED=1). */
async function approveOne(): Promise<number> {
  const abort = new AbortController();
  const text = await app.chat('pay amount 60000', 'confirmation_pending', abort);
  const id = /"confirmation_id":"([^"]+)"/.exec(text)?.[1];
  const calls = app.oaRequests.length;
  const at = Date.now();
  await app.api('POST', `/api/confirmations/${id ?? ''}/decision`, { decision: 'approve' });
  while (app.oaRequests.length === calls) await new Promise((r) => setImmediate(r));
  abort.abort();
  return (app.oaRequests.at(-1)?.at ?? at) - at;
}
/** The server process's CPU time so far (user + system, ms), from /proc: steadier than wall time on a busy machine. */
const serverCpuMs = (): number => {
  const fields = readFileSync(`/proc/${app.server.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
try {
  const started = performance.now();
  const cpu0 = serverCpuMs();
  const resumes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (GATED) resumes.push(await approveOne());
    else {
      const text = await app.chat('pay amount 100', 'done');
      if (!text.includes('event: done')) throw new Error(text.slice(-300));
    }
  }
  const cpu = (serverCpuMs() - cpu0) / RUNS;
  console.log(
    `${RUNS} runs, ${((performance.now() - started) / RUNS).toFixed(1)} ms/run (client side, incl. fakes); server CPU ${cpu.toFixed(1)} ms/run`,
  );
  if (GATED) {
    // Whole milliseconds each (the fake stamps its requests with Date.now): the mean tells sub-millisecond changes.
    const sorted = resumes.sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.floor(RUNS * q)];
    const mean = sorted.reduce((a, b) => a + b, 0) / RUNS;
    console.log(`approval -> tool call p25 ${at(0.25)} p50 ${at(0.5)} p75 ${at(0.75)} ms, mean ${mean.toFixed(2)} ms`);
  }
} finally {
  await app.close('SIGTERM');
}
if (!CPU) process.exit(0);
const file = readdirSync(DIR)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort()
  .at(-1);
if (!file) throw new Error(`no .cpuprofile written to ${DIR}`);
const profile = JSON.parse(readFileSync(`${DIR}/${file}`, 'utf8')) as {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number }>;
  samples: number[];
};
const self = new Map<string, number>();
for (const n of profile.nodes) {
  const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^.*node_modules\//, '~/').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${n.callFrame.lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + n.hitCount);
}
const total = profile.samples.length;
console.log(`${DIR}/${file}: ${total} samples`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40))
  console.log(`${((100 * v) / total).toFixed(1)}%  ${k}`);
process.exit(0);
