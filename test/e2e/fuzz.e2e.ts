import { jest } from '@jest/globals';
import * as fc from 'fast-check';
import pg from 'pg';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** How long the property runs; the suite as a whole stays around a minute. */
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 45_000);
jest.setTimeout(BUDGET_MS + 60_000);

interface Route {
  method: string;
  path: string;
  bodyKeys: string[];
}

const STACK_TRACE = /\n\s+at .+:\d+:\d+|node_modules\//;

/** Valid bodies for the main write routes; the fuzzer swaps one leaf for a generated value, to get past the DTOs. */
const VALID = (agentId: string): Record<string, unknown> => ({
  'POST /api/agents': {
    name: 'x',
    instructions: 'i',
    model_config_json: { model: { provider: 'scripted', script: [{ content: 'x' }] }, tools: [] },
  },
  'PUT /api/agents/{id}': {
    name: 'x',
    model_config_json: { model: { provider: 'scripted', script: [{ content: 'x' }] } },
  },
  'POST /api/connectors': {
    name: 'c',
    base_url: 'http://192.0.2.1',
    actions: [{ name: 'a', method: 'GET', path: '/p/{id}' }],
  },
  'POST /api/channels': { type: 'inbox', name: 'x', config: {} },
  'POST /api/chat': { agent_id: agentId, message: 'hi' },
  'PUT /api/users/{sub}/identities': { feishu_open_id: 'ou_x' },
  'POST /api/hooks/dry-run': { model_config_json: { hooks: { class_hooks: [] } }, tool: 'oa__x', args: {} },
  'PUT /api/org/read-only': { read_only: false },
  'POST /api/llm-credentials': { name: 'k', api_key: 'sk-x', origin: 'https://api.openai.com' },
});

function countLeaves(o: unknown): number {
  if (!o || typeof o !== 'object') return 0;
  return Object.values(o).reduce<number>((n, v) => n + 1 + countLeaves(v), 0);
}

/** `valid` with the leaf number `index` (of all leaves, round robin) replaced by `value`. */
function mutate(valid: unknown, index: number, value: unknown): unknown {
  const copy = structuredClone(valid) as Record<string, unknown>;
  const leaves: Array<[Record<string, unknown>, string]> = [];
  const walk = (o: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(o)) {
      if (v && typeof v === 'object') walk(v as Record<string, unknown>);
      leaves.push([o, k]);
    }
  };
  walk(copy);
  const [parent, key] = leaves[index % leaves.length];
  parent[key] = value;
  return copy;
}

/**
 * Property-based fuzzing of every route in the OpenAPI document (plus the public callback route): generated ids,
 * bodies, query strings and headers, with admin, member, garbage or no tokens. Whatever is sent: no 5xx, no stack
 * trace in the answer, no row changed by a 4xx, and the server is healthy afterwards.
 */
describe('fuzz: every route, generated input', () => {
  let t: TestApp;
  let sql: pg.Client;
  let routes: Route[];
  const ids: string[] = [];
  const tokens: Record<string, string> = {};
  let valid: Record<string, unknown> = {};

  beforeAll(async () => {
    t = await startTestApp({ EGRESS_ALLOW: '' });
    tokens.admin = await t.token('root', 'acme', ['admin']);
    tokens.member = await t.token('mia', 'acme', []);
    tokens.garbage = 'eyJhbGciOiJIUzI1NiJ9.e30.garbage';
    // First sight of a user provisions them (a row, even on a 4xx): do it before counting.
    for (const who of ['admin', 'member']) await t.request('GET', '/api/me', { token: tokens[who] });
    const agent = await t.request('POST', '/api/agents', {
      token: tokens.admin,
      body: { name: 'fz', model_config_json: { model: { provider: 'scripted', script: [{ content: 'ok' }] } } },
    });
    const connector = await t.request('POST', '/api/connectors', {
      token: tokens.admin,
      body: { name: 'fz', base_url: 'http://192.0.2.1', actions: [{ name: 'get', method: 'GET', path: '/x' }] },
    });
    const channel = await t.request('POST', '/api/channels', {
      token: tokens.admin,
      body: { type: 'inbox', name: 'fz' },
    });
    ids.push(agent.body.id, connector.body.id, channel.body.id, 'inbox');
    valid = VALID(agent.body.id);
    const doc = (await t.request('GET', '/api/docs-json')).body as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } }>
      >;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    routes = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops).map(([method, op]) => {
        const ref = op.requestBody?.content?.['application/json']?.schema?.$ref?.split('/').pop();
        return {
          method: method.toUpperCase(),
          path: p,
          bodyKeys: Object.keys((ref ? doc.components.schemas[ref]?.properties : undefined) ?? {}),
        };
      }),
    );
    routes.push({
      method: 'POST',
      path: '/api/channels/{id}/callback',
      bodyKeys: ['challenge', 'type', 'token', 'payload'],
    });
    sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await t?.close();
  });

  /** Row counts of every table (a 4xx must leave them all as they were). */
  async function rowCounts(): Promise<Record<string, number>> {
    const { rows } = await sql.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
    );
    const counts = await sql.query(
      `SELECT ${rows.map((r) => `(SELECT count(*)::int FROM "${r.table_name}") AS "${r.table_name}"`).join(', ')}`,
    );
    return counts.rows[0];
  }

  /** Waits (bounded) until no agent or workflow run is running; false when some still are. */
  async function runsQuiet(): Promise<boolean> {
    for (let i = 0; i < 100; i++) {
      const { rows } = await sql.query(
        `SELECT (SELECT count(*) FROM agent_runs WHERE status = 'running') + (SELECT count(*) FROM workflow_runs WHERE status = 'running') AS n`,
      );
      if (Number(rows[0].n) === 0) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  }

  const idArb = () =>
    fc.oneof(
      fc.constantFrom(...ids),
      fc.uuid(),
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.constantFrom('..', '%2e%2e', '\u0000', 'a\u0000b', ' ', 'null', '-1', '9'.repeat(40)),
    );
  // Strings with the characters that break things downstream (NUL, lone surrogates) spliced in.
  const nastyString = fc
    .tuple(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('\u0000', '\ud800', '\u202e', '%00', '../', '${x}', "'"),
      fc.string({ maxLength: 8 }),
    )
    .map((p) => p.join(''));
  const valueArb = () =>
    fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.constantFrom(...ids),
      { arbitrary: nastyString, weight: 3 },
      fc.string({ unit: 'binary', maxLength: 30 }),
    );
  const input = (route: Route) =>
    fc.record({
      pathIds: fc.array(idArb(), { minLength: 4, maxLength: 4 }),
      body: fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .tuple(fc.nat(), valueArb())
            .map(([i, v]) =>
              valid[`${route.method} ${route.path}`] ? mutate(valid[`${route.method} ${route.path}`], i, v) : { x: v },
            ),
        },
        fc.dictionary(
          route.bodyKeys.length
            ? fc.oneof(fc.constantFrom(...route.bodyKeys), fc.string({ maxLength: 8 }))
            : fc.string({ maxLength: 8 }),
          valueArb(),
          { maxKeys: 6 },
        ),
        fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
        fc.string({ unit: 'binary', maxLength: 60 }),
      ),
      contentType: fc.oneof(
        { arbitrary: fc.constant('application/json'), weight: 6 },
        fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1'),
      ),
      query: fc.dictionary(
        fc.constantFrom('status', 'limit', 'last_event_id', 'agent_id', 'offset', 'x'),
        fc.string({ unit: 'binary', maxLength: 20 }),
        { maxKeys: 3 },
      ),
      auth: fc.oneof(
        { arbitrary: fc.constant('admin'), weight: 4 },
        fc.constantFrom('member', 'member', 'garbage', 'none'),
      ),
      lastEventId: fc.option(fc.string({ maxLength: 12 })),
    });

  /** Every leaf of every known-valid body, swapped for each type-confusing value: a systematic sweep the fuzzer may miss. */
  it('a null, empty or wrongly typed field of any write route is a 4xx or a success, never a 5xx', async () => {
    const confusing: unknown[] = [null, '', 0, -1, true, [], {}, 'x'.repeat(5000), [null]];
    const failures: string[] = [];
    for (const [key, body] of Object.entries(valid)) {
      const [method, pathTemplate] = key.split(' ');
      const path = pathTemplate.replace('{id}', ids[0]).replace('{sub}', 'mia');
      const leafCount = countLeaves(body);
      for (let leaf = 0; leaf < leafCount; leaf++) {
        for (const value of confusing) {
          const sent = mutate(body, leaf, value);
          const res = await t.request(method, path, { token: tokens.admin, body: sent });
          if (res.status >= 500) failures.push(`${key} ${JSON.stringify(sent).slice(0, 200)} -> ${res.status}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('no 5xx, no stack trace, no rows changed by a 4xx; healthy afterwards', async () => {
    const statuses: Record<number, number> = {};
    const writeRoutes = routes.filter((r) => valid[`${r.method} ${r.path}`]);
    const routeArb = fc
      .oneof(
        { arbitrary: fc.constantFrom(...writeRoutes), weight: 2 },
        { arbitrary: fc.constantFrom(...routes), weight: 3 },
      )
      .chain((route) => input(route).map((i) => ({ route, ...i })));
    await fc.assert(
      fc.asyncProperty(routeArb, async ({ route, pathIds, body, contentType, query, auth, lastEventId }) => {
        let n = 0;
        const qs = new URLSearchParams(query).toString();
        const path =
          route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(pathIds[n++ % 4])) + (qs ? `?${qs}` : '');
        const headers: Record<string, string> = { 'content-type': contentType };
        if (auth !== 'none') headers.authorization = `Bearer ${tokens[auth]}`;
        if (lastEventId !== null) headers['last-event-id'] = lastEventId.replace(/[^\x20-\x7e]/g, '');
        const hasBody = !['GET', 'HEAD', 'DELETE'].includes(route.method);
        // Runs started by earlier inputs may still be writing their events: the count is taken once they are quiet.
        const quiet = await runsQuiet();
        const before = await rowCounts();
        const res = await fetch(`${t.url}${path}`, {
          method: route.method,
          headers,
          body: hasBody ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
          signal: AbortSignal.timeout(10_000),
        });
        // A live stream (the approvals inbox) never ends by itself: its status and headers are the answer.
        const streaming = res.status === 200 && (res.headers.get('content-type') ?? '').includes('text/event-stream');
        const text = streaming ? (await res.body?.cancel(), '') : await res.text();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const sent = hasBody ? (typeof body === 'string' ? body : JSON.stringify(body)) : '';
        const where = `${route.method} ${path} ${sent.slice(0, 300)} -> ${res.status}: ${text.slice(0, 300)}`;
        if (res.status >= 500) throw new Error(`5xx: ${where}`);
        if (STACK_TRACE.test(text)) throw new Error(`stack trace: ${where}`);
        if (res.status >= 400 && quiet) expect({ where, counts: await rowCounts() }).toEqual({ where, counts: before });
      }),
      {
        numRuns: 100_000,
        plugins: [fc.interruptAfterTimeLimit(BUDGET_MS, { failOnInterrupt: false })],
        seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31),
      },
    );
    // What was exercised, for whoever reads the log of a run.
    process.stdout.write(`fuzz statuses: ${JSON.stringify(statuses)}\n`);
    expect((await t.request('GET', '/api/health')).status).toBe(200);
  });
});
