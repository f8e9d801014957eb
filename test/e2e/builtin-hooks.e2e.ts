import { createHash, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  AuditLogHook,
  AuditWriter,
  ConnectorRateLimitHook,
  ConnectorRateLimiters,
  ReadOnlyGuardHook,
  ResultTruncateHook,
  SessionContextHook,
} from '../../libs/hooks/src/builtin/index.js';
import { HookBuildError } from '../../libs/hooks/src/hook-build.error.js';
import { HookResolver } from '../../libs/hooks/src/hook-resolver.js';
import { HookPoint, type HookContext, type ToolCallMetadata } from '../../libs/hooks/src/hook.types.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

interface Member {
  token: string;
  userId: string;
  orgId: string;
}

const OA = {
  id: randomUUID(),
  name: 'oa',
  action: 'purchase_pay',
  method: 'POST',
  url: 'http://oa.internal/purchases/7/pay',
};

function context(
  who: Member,
  over: Partial<Omit<HookContext, 'metadata'>> & { metadata?: ToolCallMetadata } = {},
): HookContext {
  return {
    point: HookPoint.PreToolUse,
    toolName: 'oa__purchase_pay',
    toolArgs: { id: 7, amount: 1200 },
    agentId: randomUUID(),
    userId: who.userId,
    orgId: who.orgId,
    runId: randomUUID(),
    callId: `call_${randomUUID().slice(0, 8)}`,
    surface: 'chat',
    emit: () => Promise.resolve(),
    signal: new AbortController().signal,
    ...over,
    metadata: over.metadata ?? {},
  };
}

/** Returns once the clock has moved past this millisecond: rows recorded before and after get distinct times. */
const nextMillisecond = () => {
  const now = Date.now();
  return until('the clock to tick', () => Date.now() > now, 1_000, 1);
};

describe('built-in hooks (real PostgreSQL)', () => {
  let t: TestApp;
  let db: DataSource;
  let admin: Member;
  let member: Member;

  async function login(sub: string, org: string, roles: string[], name?: string): Promise<Member> {
    const token = await t.token(sub, org, roles, name ? { name } : {});
    const me = await t.request('GET', '/api/me', { token });
    expect(me.status).toBe(200);
    return { token, userId: me.body.user_id, orgId: me.body.org_id };
  }

  const auditRows = async (where: string, params: unknown[]) =>
    db.query<Array<Record<string, any>>>(`SELECT * FROM connector_call_logs WHERE ${where} ORDER BY id`, params);

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    admin = await login('alice', 'acme', ['admin'], 'Alice Admin');
    member = await login('bob', 'acme', []);
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('audit_log', () => {
    it('writes one row per connector call with who, what, the args digest and the outcome (args only with store_args)', async () => {
      const hook = t.app.get(AuditLogHook);
      const writer = t.app.get(AuditWriter);
      const args = { b: { y: 2, x: 1 }, a: [3, { d: 4, c: 5 }] };
      const ctx = context(admin, {
        point: HookPoint.PostToolUse,
        toolArgs: args,
        toolResult: '{"ok":true}',
        metadata: { connector: OA, execution: { status: 201, durationMs: 42.4, success: true } },
      });
      expect(hook.shouldTrigger(ctx)).toBe(true);
      await hook.execute(ctx, {});
      await hook.execute({ ...ctx, callId: 'call_stored' }, { store_args: true });
      await writer.flush();

      const rows = await auditRows('run_id = $1', [ctx.runId]);
      expect(rows).toHaveLength(2);
      const canonical = '{"a":[3,{"c":5,"d":4}],"b":{"x":1,"y":2}}';
      expect(rows[0]).toMatchObject({
        org_id: admin.orgId,
        agent_id: ctx.agentId,
        user_id: admin.userId,
        run_id: ctx.runId,
        call_id: ctx.callId,
        surface: 'chat',
        tool: 'oa__purchase_pay',
        connector_id: OA.id,
        connector_name: 'oa',
        action: 'purchase_pay',
        method: 'POST',
        url: OA.url,
        status: 201,
        duration_ms: 42,
        success: true,
        error: null,
        blocked_by: null,
        args: null,
        args_digest: createHash('sha256').update(canonical).digest('hex'),
      });
      expect(rows[1]).toMatchObject({ call_id: 'call_stored', args, args_digest: rows[0].args_digest });
    });

    it('records a blocked call with blocked_by and the block reason', async () => {
      const hook = t.app.get(AuditLogHook);
      const ctx = context(admin, { metadata: { connector: OA, write: true } });
      await hook.onBlocked(ctx, { blockedBy: 'read_only_guard', error: 'org acme is in read-only mode' }, {});
      await t.app.get(AuditWriter).flush();
      const [row] = await auditRows('run_id = $1', [ctx.runId]);
      expect(row).toMatchObject({
        blocked_by: 'read_only_guard',
        error: 'org acme is in read-only mode',
        success: false,
        status: null,
        duration_ms: null,
      });
    });

    it('ignores calls that are not connector calls, and writes nothing in a dry run', async () => {
      const hook = t.app.get(AuditLogHook);
      expect(hook.shouldTrigger(context(admin, { toolName: 'call_agent' }))).toBe(false);
      const ctx = context(admin, {
        point: HookPoint.PostToolUse,
        metadata: { connector: OA, dryRun: true, execution: { durationMs: 1, success: true } },
      });
      const result = await hook.execute(ctx, {});
      await hook.onBlocked(ctx, { blockedBy: 'read_only_guard', error: 'x' }, {});
      expect(result.sideEffects).toEqual(['would write a connector call log row']);
      expect(t.app.get(AuditWriter).pending).toBe(0);
      await t.app.get(AuditWriter).flush();
      expect(await auditRows('run_id = $1', [ctx.runId])).toHaveLength(0);
    });

    it('batches: 1,200 calls become a handful of INSERTs and exactly 1,200 rows', async () => {
      const hook = t.app.get(AuditLogHook);
      const writer = t.app.get(AuditWriter);
      const runId = randomUUID();
      const before = writer.stats.inserts;
      for (let i = 0; i < 1200; i++) {
        await hook.execute(
          context(admin, {
            point: HookPoint.PostToolUse,
            runId,
            callId: `c${i}`,
            metadata: { connector: OA, execution: { durationMs: 3, success: true, status: 200 } },
          }),
          {},
        );
      }
      const rows = await until('1,200 audit rows', async () => {
        const r = await auditRows('run_id = $1', [runId]);
        return r.length >= 1200 && r;
      });
      expect(rows).toHaveLength(1200);
      expect(new Set(rows.map((r) => r.call_id)).size).toBe(1200);
      expect(writer.stats.inserts - before).toBeLessThanOrEqual(4);
    });

    it('flushes a partly filled buffer on its own shortly after the first row', async () => {
      const hook = t.app.get(AuditLogHook);
      const writer = t.app.get(AuditWriter);
      const ctx = context(admin, {
        point: HookPoint.PostToolUse,
        metadata: { connector: OA, execution: { durationMs: 3, success: true } },
      });
      const inserts = writer.stats.inserts;
      await hook.execute(ctx, {});
      expect(writer.pending).toBe(1);
      expect(writer.stats.inserts).toBe(inserts);
      // The writer's own timer (200 ms) writes it: nobody calls flush() here.
      await until('the timer flushes the row', () => writer.stats.inserts > inserts, 5_000);
      expect(writer.pending).toBe(0);
      expect(await auditRows('run_id = $1', [ctx.runId])).toHaveLength(1);
    });

    it('a row the database rejects does not take the rest of its batch with it', async () => {
      const hook = t.app.get(AuditLogHook);
      const writer = t.app.get(AuditWriter);
      const runId = randomUUID();
      const dropped = writer.stats.rowsDropped;
      for (const [callId, status] of [
        ['a', 200],
        ['bad', 99_999_999_999],
        ['c', 500],
      ] as const) {
        await hook.execute(
          context(admin, {
            point: HookPoint.PostToolUse,
            runId,
            callId,
            metadata: { connector: OA, execution: { status, durationMs: 1, success: status === 200 } },
          }),
          {},
        );
      }
      await writer.flush();
      expect((await auditRows('run_id = $1', [runId])).map((r) => r.call_id)).toEqual(['a', 'c']);
      expect(writer.stats.rowsDropped - dropped).toBe(1);
    });

    describe('GET /api/audit/connector-calls', () => {
      it('lists the org rows newest first, filtered by agent and run, with a limit', async () => {
        const hook = t.app.get(AuditLogHook);
        const agentId = randomUUID();
        const runId = randomUUID();
        for (const callId of ['first', 'second', 'third']) {
          await hook.execute(
            context(admin, {
              point: HookPoint.PostToolUse,
              agentId,
              runId,
              callId,
              metadata: { connector: OA, execution: { durationMs: 5, success: true, status: 200 } },
            }),
            {},
          );
          await nextMillisecond();
        }
        await t.app.get(AuditWriter).flush();

        const byAgent = await t.request('GET', `/api/audit/connector-calls?agent_id=${agentId}`, {
          token: admin.token,
        });
        expect(byAgent.status).toBe(200);
        expect(byAgent.body.map((r: { call_id: string }) => r.call_id)).toEqual(['third', 'second', 'first']);
        expect(byAgent.body[0]).toMatchObject({
          agent_id: agentId,
          run_id: runId,
          connector: 'oa',
          action: 'purchase_pay',
          method: 'POST',
          success: true,
          blocked_by: null,
        });

        const limited = await t.request('GET', `/api/audit/connector-calls?run_id=${runId}&limit=2`, {
          token: admin.token,
        });
        expect(limited.body.map((r: { call_id: string }) => r.call_id)).toEqual(['third', 'second']);
      });

      it('is for admins of the same org only', async () => {
        const agentId = randomUUID();
        await t.app.get(AuditLogHook).execute(
          context(admin, {
            point: HookPoint.PostToolUse,
            agentId,
            metadata: { connector: OA, execution: { durationMs: 5, success: true } },
          }),
          {},
        );
        await t.app.get(AuditWriter).flush();

        expect((await t.request('GET', '/api/audit/connector-calls', { token: member.token })).status).toBe(403);
        const other = await login('mallory', 'globex', ['admin']);
        const res = await t.request('GET', `/api/audit/connector-calls?agent_id=${agentId}`, { token: other.token });
        expect(res.status).toBe(200);
        expect(res.body).toEqual([]);
      });

      it.each([
        ['limit=0', /limit must be at least 1/],
        ['limit=501', /limit must be at most 500/],
        ['limit=ten', /limit must be an integer/],
        ['agent_id=nope', /agent_id must be a UUID/],
        ['run_id=42', /run_id must be a UUID/],
        ['user=alice', /property user should not exist/],
      ])('rejects %s with a 400 naming the problem', async (query, message) => {
        const res = await t.request('GET', `/api/audit/connector-calls?${query}`, { token: admin.token });
        expect(res.status).toBe(400);
        expect(JSON.stringify(res.body.message)).toMatch(message);
      });
    });
  });

  describe('read_only_guard', () => {
    const write = { connector: OA, write: true };
    const read = { connector: { ...OA, action: 'purchase_get', method: 'GET' }, write: false };

    afterEach(async () => {
      await t.request('PUT', '/api/org/read-only', { token: admin.token, body: { read_only: false } });
    });

    it('blocks write tools while the org is read-only, naming the org mode; reads still run; off -> both run', async () => {
      const guard = t.app.get(ReadOnlyGuardHook);
      expect(
        (await t.request('PUT', '/api/org/read-only', { token: admin.token, body: { read_only: true } })).status,
      ).toBe(200);

      const writeCtx = context(admin, { metadata: write });
      expect(guard.shouldTrigger(writeCtx)).toBe(true);
      const blocked = await guard.execute(writeCtx);
      expect(blocked.allow).toBe(false);
      expect(blocked.error).toBe('org acme is in read-only mode: write tool oa__purchase_pay refused');
      // A read never reaches the guard (so never the database).
      expect(guard.shouldTrigger(context(admin, { toolName: 'oa__purchase_get', metadata: read }))).toBe(false);

      await t.request('PUT', '/api/org/read-only', { token: admin.token, body: { read_only: false } });
      const allowed = await guard.execute(writeCtx);
      expect(allowed.allow).not.toBe(false);
    });

    it('only concerns the org that is read-only', async () => {
      const other = await login('olga', 'initech', ['admin']);
      await t.request('PUT', '/api/org/read-only', { token: admin.token, body: { read_only: true } });
      const result = await t.app.get(ReadOnlyGuardHook).execute(context(other, { metadata: write }));
      expect(result.allow).not.toBe(false);
    });

    it('a member cannot switch read-only mode on (403) and the guard keeps allowing writes', async () => {
      const res = await t.request('PUT', '/api/org/read-only', { token: member.token, body: { read_only: true } });
      expect(res.status).toBe(403);
      expect((await t.app.get(ReadOnlyGuardHook).execute(context(member, { metadata: write }))).allow).not.toBe(false);
    });
  });

  describe('result_truncate', () => {
    it('cuts a 20,000-char observation to 8,000 chars plus a marker stating the original length', () => {
      const hook = t.app.get(ResultTruncateHook);
      const observation = 'x'.repeat(19_990) + 'TAIL_ENDS!';
      const ctx = context(admin, { point: HookPoint.PostToolUse, toolResult: observation });
      expect(hook.shouldTrigger(ctx, { max_chars: 8000 })).toBe(true);
      const result = hook.execute(ctx, { max_chars: 8000 });
      expect(result.modifiedResult).toBe(`${'x'.repeat(8000)}\n…[truncated: 20000 chars, showing 8000]`);
      expect(result.modifiedResult).not.toContain('TAIL_ENDS');
    });
  });

  describe('connector_rate_limit (PostgreSQL store)', () => {
    const config = { points: 3, duration_s: 60 };

    it('uses the PostgreSQL store when a database URL is configured', () => {
      expect(t.app.get(ConnectorRateLimiters).store).toBe('postgres');
    });

    it('blocks the 4th call of the same user with a retry hint; another user is not affected', async () => {
      const hook = t.app.get(ConnectorRateLimitHook);
      const connector = { ...OA, id: randomUUID() };
      for (let i = 1; i <= 3; i++) {
        const r = await hook.execute(context(admin, { metadata: { connector } }), config);
        expect(r.allow).not.toBe(false);
      }
      const fourth = await hook.execute(context(admin, { metadata: { connector } }), config);
      expect(fourth.allow).toBe(false);
      expect(fourth.error).toMatch(/^rate limit 3 per 60 s for oa reached; retry in (5\d|60) s$/);

      const other = await hook.execute(context(member, { metadata: { connector } }), config);
      expect(other.allow).not.toBe(false);
    });

    it('counts an action with its own override separately from the rest of the connector', async () => {
      const hook = t.app.get(ConnectorRateLimitHook);
      const connector = { ...OA, id: randomUUID() };
      const withOverride = { ...config, actions: { purchase_pay: { points: 1, duration_s: 10 } } };
      expect((await hook.execute(context(admin, { metadata: { connector } }), withOverride)).allow).not.toBe(false);
      const second = await hook.execute(context(admin, { metadata: { connector } }), withOverride);
      expect(second.error).toMatch(/^rate limit 1 per 10 s for oa\.purchase_pay reached; retry in \d+ s$/);
      const otherAction = { ...connector, action: 'purchase_get', method: 'GET' };
      expect(
        (
          await hook.execute(
            context(admin, { toolName: 'oa__purchase_get', metadata: { connector: otherAction } }),
            withOverride,
          )
        ).allow,
      ).not.toBe(false);
    });

    it('a dry run reports without consuming a point', async () => {
      const hook = t.app.get(ConnectorRateLimitHook);
      const connector = { ...OA, id: randomUUID() };
      const limit = { points: 1, duration_s: 60 };
      for (let i = 0; i < 3; i++) {
        const dry = await hook.execute(context(admin, { metadata: { connector, dryRun: true } }), limit);
        expect(dry.allow).not.toBe(false);
      }
      expect((await hook.execute(context(admin, { metadata: { connector } }), limit)).allow).not.toBe(false);
      const dryAfter = await hook.execute(context(admin, { metadata: { connector, dryRun: true } }), limit);
      expect(dryAfter.allow).toBe(false);
      expect(dryAfter.error).toMatch(/retry in \d+ s/);
    });

    it('a malformed per-action override blocks (throws, so the registry fails closed) naming the setting', async () => {
      const hook = t.app.get(ConnectorRateLimitHook);
      await expect(
        hook.execute(context(admin, { metadata: { connector: OA } }), {
          ...config,
          actions: { purchase_pay: { points: 0 } },
        }),
      ).rejects.toThrow(/actions\.purchase_pay must be \{ "points": integer >= 1, "duration_s": integer >= 1 \}/);
    });

    it('two server instances on one database share the count', async () => {
      const second = await startTestApp({}, { databaseUrl: t.databaseUrl });
      try {
        const connector = { ...OA, id: randomUUID() };
        const first = t.app.get(ConnectorRateLimitHook);
        const other = second.app.get(ConnectorRateLimitHook);
        expect((await first.execute(context(admin, { metadata: { connector } }), config)).allow).not.toBe(false);
        expect((await other.execute(context(admin, { metadata: { connector } }), config)).allow).not.toBe(false);
        expect((await first.execute(context(admin, { metadata: { connector } }), config)).allow).not.toBe(false);
        const fourth = await other.execute(context(admin, { metadata: { connector } }), config);
        expect(fourth.allow).toBe(false);
        expect(fourth.error).toMatch(/rate limit 3 per 60 s for oa reached; retry in \d+ s/);
      } finally {
        await second.close();
      }
    });
  });

  describe('session_context', () => {
    afterEach(async () => {
      await t.request('PUT', '/api/org/read-only', { token: admin.token, body: { read_only: false } });
    });

    it("adds the time, the user's name and roles, the admin text, and says when the org is read-only", async () => {
      const hook = t.app.get(SessionContextHook);
      const ctx = context(admin, { point: HookPoint.SessionStart, toolName: '', toolArgs: {} });
      const normal = await hook.execute(ctx, { text: 'Amounts are in EUR.' });
      expect(normal.additionalContext).toContain('User: Alice Admin (alice); roles: admin');
      expect(normal.additionalContext).toMatch(/Current time: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
      expect(normal.additionalContext).toContain('Amounts are in EUR.');
      expect(normal.additionalContext).not.toContain('READ-ONLY');

      await t.request('PUT', '/api/org/read-only', { token: admin.token, body: { read_only: true } });
      const readOnly = await hook.execute(ctx, {});
      expect(readOnly.additionalContext).toContain(
        'Organisation acme is in READ-ONLY mode: every write action will be refused',
      );
    });
  });

  describe('through the hook engine (HookResolver + HookRegistry), as an agent declares them', () => {
    const hooksConfig = {
      class_hooks: [
        { name: 'connector_rate_limit', config: { points: 3, duration_s: 60 } },
        'result_truncate',
        { name: 'session_context', config: { text: 'Be brief.' } },
        { name: 'audit_log', config: { store_args: true } },
      ],
    };

    afterEach(async () => {
      await t.request('PUT', '/api/org/read-only', { token: admin.token, body: { read_only: false } });
    });

    it('GET /api/hooks lists the five built-ins with their points, priorities and auto_attached', async () => {
      const res = await t.request('GET', '/api/hooks', { token: member.token });
      expect(res.status).toBe(200);
      const byName = Object.fromEntries(res.body.map((h: { name: string }) => [h.name, h]));
      expect(byName.read_only_guard).toMatchObject({ point: 'PreToolUse', priority: 5, auto_attached: true });
      expect(byName.connector_rate_limit).toMatchObject({ point: 'PreToolUse', priority: 8, auto_attached: false });
      expect(byName.session_context).toMatchObject({ point: 'SessionStart', auto_attached: false });
      expect(byName.result_truncate).toMatchObject({ point: 'PostToolUse', priority: 900, auto_attached: false });
      expect(byName.audit_log).toMatchObject({ point: 'PostToolUse', priority: 1000, auto_attached: true });
    });

    it('an agent declaring all four: blocked write -> audit row with blocked_by; executed call -> row; long result cut; read-only notice at session start', async () => {
      const registry = await t.app.get(HookResolver).resolve({ hooksConfig });
      const names = registry.entries().map((e) => `${e.name}${e.autoAttached ? '*' : ''}`);
      const builtins = ['session_context', 'read_only_guard*', 'connector_rate_limit', 'result_truncate', 'audit_log*'];
      // In run order, with the two auto-attached built-ins marked (other auto-attached hooks, e.g. the gate, aside).
      expect(names.filter((n) => builtins.includes(n))).toEqual(builtins);

      const runId = randomUUID();
      const base = (callId: string, metadata: ToolCallMetadata) => ({
        toolName: 'oa__purchase_pay',
        toolArgs: { id: 7, amount: 1200 },
        agentId: randomUUID(),
        userId: admin.userId,
        orgId: admin.orgId,
        runId,
        callId,
        surface: 'chat' as const,
        emit: () => Promise.resolve(),
        metadata,
      });
      const connector = { ...OA, id: randomUUID() };

      await t.request('PUT', '/api/org/read-only', { token: admin.token, body: { read_only: true } });
      const session = await registry.runSessionStart({ ...base('', {}), toolName: '', toolArgs: {} });
      expect(session.additionalContext.join('\n')).toContain('READ-ONLY mode');
      expect(session.additionalContext.join('\n')).toContain('Be brief.');

      const blockedCall = base('blocked', { connector, write: true });
      const verdict = await registry.runPreToolUse(blockedCall);
      expect(verdict).toMatchObject({
        allow: false,
        blockedBy: 'read_only_guard',
        error: 'org acme is in read-only mode: write tool oa__purchase_pay refused',
      });
      await registry.runBlocked(blockedCall, { blockedBy: verdict.blockedBy!, error: verdict.error! });

      await t.request('PUT', '/api/org/read-only', { token: admin.token, body: { read_only: false } });
      const okCall = base('ran', { connector, write: true });
      expect((await registry.runPreToolUse(okCall)).allow).toBe(true);
      const post = await registry.runPostToolUse({
        ...okCall,
        toolResult: 'y'.repeat(20_000),
        metadata: { ...okCall.metadata, execution: { status: 200, durationMs: 31, success: true } },
      });
      expect(post.result).toBe(`${'y'.repeat(8000)}\n…[truncated: 20000 chars, showing 8000]`);

      await t.app.get(AuditWriter).flush();
      const rows = await auditRows('run_id = $1', [runId]);
      expect(rows.map((r) => [r.call_id, r.blocked_by, r.success, r.status])).toEqual([
        ['blocked', 'read_only_guard', false, null],
        ['ran', null, true, 200],
      ]);
      expect(rows[1].args).toEqual({ id: 7, amount: 1200 });
    });

    it('the 4th call of a user is blocked by connector_rate_limit before the gate, and audited as such', async () => {
      const registry = await t.app.get(HookResolver).resolve({ hooksConfig });
      const runId = randomUUID();
      const connector = { ...OA, id: randomUUID(), action: 'purchase_get', method: 'GET' };
      const call = (i: number) => ({
        toolName: 'oa__purchase_get',
        toolArgs: { id: i },
        agentId: randomUUID(),
        userId: admin.userId,
        orgId: admin.orgId,
        runId,
        callId: `get${i}`,
        surface: 'chat' as const,
        emit: () => Promise.resolve(),
        metadata: { connector, write: false },
      });
      for (let i = 1; i <= 3; i++) expect((await registry.runPreToolUse(call(i))).allow).toBe(true);
      const fourth = await registry.runPreToolUse(call(4));
      expect(fourth).toMatchObject({ allow: false, blockedBy: 'connector_rate_limit' });
      expect(fourth.error).toMatch(/^rate limit 3 per 60 s for oa reached; retry in \d+ s$/);
      await registry.runBlocked(call(4), { blockedBy: fourth.blockedBy!, error: fourth.error! });
      await t.app.get(AuditWriter).flush();
      const [row] = await auditRows('run_id = $1', [runId]);
      expect(row).toMatchObject({ call_id: 'get4', blocked_by: 'connector_rate_limit', method: 'GET' });
    });

    it('connector_rate_limit declared without its limits refuses the run, naming the missing settings', async () => {
      const err = await t.app
        .get(HookResolver)
        .resolve({ hooksConfig: { class_hooks: ['connector_rate_limit'] } })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HookBuildError);
      expect((err as HookBuildError).problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/points: is required/),
          expect.stringMatching(/duration_s: is required/),
        ]),
      );
    });
  });
});
