/**
 * A CPU profile of the server over PROFILE_RUNS sequential chat runs (model -> one connector call -> answer), for
 * finding where a run's platform overhead goes: `npm run build && node --import @swc-node/register/esm-register
 * bench/profile-run.ts`; writes a .cpuprofile under PROFILE_DIR (default /tmp/warden-profile) and prints the top
 * self-time functions.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { mintDevToken } from '../libs/auth/src/tokens/dev-token.js';
import { startFakeOpenAI } from '../test/fakes/fake-openai.js';
import { startHttpFake } from '../test/fakes/http-fake.js';
import { startServerProcess } from '../test/support/server-process.js';
import { createBenchDatabase } from './bench-database.js';

const RUNS = Number(process.env.PROFILE_RUNS ?? 300);
const DIR = process.env.PROFILE_DIR ?? '/tmp/warden-profile';
const SECRET = 'bench-profile-dev-secret-0123456789abcdef';
mkdirSync(DIR, { recursive: true });
const db = await createBenchDatabase('profile');
const llm = await startFakeOpenAI((body) =>
  body.messages.some((m) => m.role === 'tool')
    ? { content: 'Paid.' }
    : { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-1', amount: 100 } }] },
);
const oa = await startHttpFake(() => ({ ok: true }));
const server = await startServerProcess(
  {
    DATABASE_URL: db.url,
    AUTH_MODE: 'dev',
    AUTH_DEV_SECRET: SECRET,
    APP_ENCRYPTION_KEY: 'bench-encryption-key-0123456789abcdef',
    NODE_ENV: 'production',
    AUTH_ALLOW_DEV_IN_PRODUCTION: '1',
    LOG_LEVEL: 'warn',
    SEED_DEMO: 'false',
    WARDEN_LLM_KEY_FAKE: 'sk-fake',
  },
  { timeoutMs: 120_000, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${DIR}`] },
);
try {
  const token = await mintDevToken(SECRET, { sub: 'alice', org: 'acme', roles: ['admin'] });
  const api = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
    return res.json() as Promise<T>;
  };
  await api('POST', '/api/connectors', {
    name: 'oa',
    base_url: oa.url,
    actions: [
      {
        name: 'purchase_pay',
        method: 'POST',
        path: '/purchases/{id}/pay',
        write: true,
        parameters: { type: 'object', properties: { id: { type: 'string' }, amount: { type: 'number' } }, required: ['id', 'amount'] },
      },
    ],
  });
  const agent = await api<{ id: string }>('POST', '/api/agents', {
    name: 'profile',
    instructions: 'pay',
    model_config_json: {
      model: { provider: 'openai', base_url: llm.baseUrl, model: 'fake', api_key_env: 'WARDEN_LLM_KEY_FAKE' },
      tools: ['oa__*'],
    },
  });
  const started = performance.now();
  for (let i = 0; i < RUNS; i++) {
    const res = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agent.id, message: 'pay' }),
    });
    const text = await res.text();
    if (!text.includes('event: done')) throw new Error(text.slice(-300));
  }
  console.log(`${RUNS} runs, ${((performance.now() - started) / RUNS).toFixed(1)} ms/run (client side, incl. fakes)`);
} finally {
  await server.stop('SIGTERM');
  await Promise.all([llm.close(), oa.close()]);
  await db.drop();
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
