import type { NestExpressApplication } from '@nestjs/platform-express';
import pg from 'pg';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CONFIG_ROUTE_CASES, SECRETS, type RouteCaseContext } from './config-route-cases.js';

const BOT_TOKEN = 'xoxb-bot-SECRET-token';

/**
 * Mutating routes that are not configuration, each with the reason. Everything else under /api that the router holds
 * for POST, PUT, PATCH or DELETE must be a case of CONFIG_ROUTE_CASES: a new configuration route fails this suite until
 * it writes its audit event.
 */
const NOT_CONFIGURATION: Record<string, string> = {
  // Runs: their tool calls and decisions are audited as connector_call and confirmation events (audit-trail.e2e).
  'POST /api/chat': 'starts a run',
  'POST /api/runs/:id/cancel': 'ends a run (an approval it expires is on the confirmation trail)',
  'POST /api/workflows/:id/runs': 'starts a workflow run',
  'POST /api/workflow-runs/:id/cancel': 'ends a workflow run',
  'POST /api/evals': 'an eval run: hooks bypassed, writes simulated, results stored on the eval',
  // Decisions: the confirmation-side trail (confirmation.* events; approvals with changes, reassignments).
  'POST /api/confirmations/:id/decision': 'an approval decision, audited as confirmation events',
  'POST /api/confirmations/:id/reassign': 'moves a pending approval, audited on the confirmation trail',
  // No configuration changes.
  'POST /api/hooks/dry-run': 'what hooks would do, with no side effects',
  'POST /api/workflows/validate': 'checks a workflow definition as a save would; stores nothing',
  'POST /api/hooks/cel-check': 'checks a tier condition on example args; reads and writes nothing',
  'POST /api/agents/validate': 'what a save of an agent config would refuse; nothing is saved',
  'POST /api/policies/replay': 'what a candidate policy would have decided over recorded calls; changes nothing',
  'POST /api/agents/:id/test': "runs the agent's policy tests against a candidate (dry run); changes nothing",
  'POST /api/org/hooks/test': "runs the org hooks' policy tests against a candidate (dry run); changes nothing",
  'POST /api/channels/:id/test': 'sends a test card through a channel',
  'POST /api/channels/:id/callback': "a chat platform's signed callback: clicks become decisions",
  'POST /api/me/identities/link': 'sends a one-time code; the link itself is made (and audited) by /verify',
  'POST /api/dev/sign-in': 'dev-mode sign-in: issues a token',
};

/** `METHOD /path` of every mutating route the running app's router holds under /api. */
function mutatingRoutes(app: NestExpressApplication): string[] {
  const router = (app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: any }> } }).router;
  const routes = new Set<string>();
  for (const { route } of router.stack) {
    if (!route || typeof route.path !== 'string' || !route.path.startsWith('/api/')) continue;
    for (const method of Object.keys(route.methods as Record<string, boolean>)) {
      if (['post', 'put', 'patch', 'delete', '_all'].includes(method))
        routes.add(`${method.replace('_', '').toUpperCase()} ${route.path}`);
    }
  }
  return [...routes].sort();
}

/** Acceptance 2 of #29: every configuration route writes exactly one chained audit event (actor, object, diff, no secrets). */
describe('every configuration route is in the tamper-evident trail (PostgreSQL)', () => {
  let t: TestApp;
  let slack: FakeSlack;
  let db: pg.Client;
  let c: RouteCaseContext;

  /** The org's chain head: its seq and hash (the genesis hash before the first event). */
  const head = async (): Promise<{ seq: number; hash: string }> => {
    const { rows } = await db.query(`SELECT seq::int AS seq, hash FROM audit_chain_heads WHERE org_id = $1`, [c.orgId]);
    return rows[0] ?? { seq: 0, hash: '0'.repeat(64) };
  };

  beforeAll(async () => {
    slack = await startFakeSlack(BOT_TOKEN);
    t = await startTestApp();
    const admin = await t.token('alice', 'acme', ['admin']);
    const bob = await t.token('bob', 'acme', []);
    const me = (await t.request('GET', '/api/me', { token: admin })).body;
    const bobMe = (await t.request('GET', '/api/me', { token: bob })).body;
    c = { t, admin, adminUserId: me.user_id, bob, bobUserId: bobMe.user_id, orgId: me.org_id, slack };
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
    await slack?.close();
  });

  it('the router holds no mutating route that is neither a configuration case nor a listed exception', () => {
    const routes = mutatingRoutes(t.app);
    const known = new Set([...Object.keys(CONFIG_ROUTE_CASES), ...Object.keys(NOT_CONFIGURATION)]);
    expect(routes.filter((r) => !known.has(r))).toEqual([]);
    // And the lists name only routes that exist (a renamed route must be moved, not left behind).
    expect([...known].filter((r) => !routes.includes(r))).toEqual([]);
    expect(Object.keys(CONFIG_ROUTE_CASES).filter((r) => r in NOT_CONFIGURATION)).toEqual([]);
  });

  it.each(Object.keys(CONFIG_ROUTE_CASES))(
    '%s writes one chained audit event: actor, object, diff, no secret',
    async (route) => {
      const kase = CONFIG_ROUTE_CASES[route];
      const made = (await kase.setup?.(c)) ?? {};
      const before = await head();
      const res = await kase.act(c, made);
      expect({ route, status: res.status, body: res.status < 300 ? 'ok' : res.body }).toEqual({
        route,
        status: res.status,
        body: 'ok',
      });

      const { rows: events } = await db.query(
        `SELECT seq::int AS seq, kind, action, entity_type, entity_id, actor, payload, prev_hash, hash
         FROM audit_events WHERE org_id = $1 AND seq > $2 ORDER BY seq`,
        [c.orgId, before.seq],
      );
      expect(events.map((e) => e.action)).toHaveLength(1);
      const [event] = events;
      const entity = kase.entity(c, made, res);
      expect(event).toMatchObject({
        seq: before.seq + 1,
        prev_hash: before.hash,
        kind: entity.type === 'identity' ? 'identity' : 'config',
        entity_type: entity.type,
        entity_id: entity.id,
        actor: kase.actor?.(c) ?? c.adminUserId,
      });
      // The diff: what the object was and became, and the changed paths.
      const { payload } = event;
      expect(Array.isArray(payload.changes)).toBe(true);
      const verb = String(event.action).split('.').pop();
      if (verb === 'created') expect([payload.before, payload.after]).toEqual([null, expect.any(Object)]);
      else if (verb === 'deleted') expect([payload.before, payload.after]).toEqual([expect.any(Object), null]);
      else expect(payload.changes.length).toBeGreaterThan(0);
      const text = JSON.stringify(event);
      for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
      await kase.cleanup?.(c);
    },
  );

  it('the whole trail verifies, and holds no secret anywhere', async () => {
    const verified = (await t.request('GET', '/api/audit/verify', { token: c.admin })).body;
    expect(verified).toMatchObject({ valid: true, first_broken: null, rows: (await head()).seq });
    const trail = (await t.request('GET', '/api/audit/events/export?format=jsonl', { token: c.admin })).text;
    for (const secret of Object.values(SECRETS)) expect(trail).not.toContain(secret);
  });
});
