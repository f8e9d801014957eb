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
mkdirSync(DIR, { recursive: true });
const app = await startPayBenchApp('profile', {
  env: { NODE_ENV: 'production', AUTH_ALLOW_DEV_IN_PRODUCTION: '1', LOG_LEVEL: 'warn' },
  nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${DIR}`],
});
/** The server process's CPU time so far (user + system, ms), from /proc: steadier than wall time on a busy machine. */
const serverCpuMs = (): number => {
  const fields = readFileSync(`/proc/${app.server.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
try {
  const started = performance.now();
  const cpu0 = serverCpuMs();
  for (let i = 0; i < RUNS; i++) {
    const text = await app.chat('pay amount 100', 'done');
    if (!text.includes('event: done')) throw new Error(text.slice(-300));
  }
  const cpu = (serverCpuMs() - cpu0) / RUNS;
  console.log(
    `${RUNS} runs, ${((performance.now() - started) / RUNS).toFixed(1)} ms/run (client side, incl. fakes); server CPU ${cpu.toFixed(1)} ms/run`,
  );
} finally {
  await app.close('SIGTERM');
}
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
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${((100 * v) / total).toFixed(1)}%  ${k}`);
process.exit(0);
