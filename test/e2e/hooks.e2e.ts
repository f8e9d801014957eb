import { Module } from '@nestjs/common';
import { Hook, PreToolUseHook, type HookContext, type HookResult } from '@warden/hooks';
import path from 'node:path';
import pg from 'pg';
import { startTestApp, type TestApp } from '../support/test-app.js';

const HOOKS_DIR = path.resolve('test/fixtures/hooks');

/** A test-only class hook: would stop for a human when the amount is high; honours dryRun like the real gate. */
@Hook({
  name: 'big_amount_check',
  priority: 30,
  description: 'Asks for approval of big amounts',
  configSchema: { type: 'object', properties: { limit: { type: 'number', minimum: 0, default: 1000 } } },
})
class BigAmountCheckHook extends PreToolUseHook<{ limit: number }> {
  execute(ctx: HookContext, config: { limit: number }): HookResult {
    if (Number(ctx.toolArgs.amount ?? 0) <= config.limit) return {};
    return ctx.metadata.dryRun
      ? { wouldRequireConfirmation: true, sideEffects: [`amount over ${config.limit}`] }
      : { allow: false, error: 'needs approval' };
  }
}

@Module({ providers: [BigAmountCheckHook] })
class TestHooksModule {}

async function rowCounts(databaseUrl: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
    );
    const counts: Record<string, number> = {};
    for (const { table_name } of tables.rows) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table_name}"`);
      counts[table_name] = Number(rows[0].n);
    }
    return counts;
  } finally {
    await client.end();
  }
}

describe('hooks API', () => {
  let t: TestApp;
  let admin: string;
  let member: string;
  beforeAll(async () => {
    t = await startTestApp({ HOOKS_DIR }, { imports: [TestHooksModule] });
    admin = await t.token('alice', 'acme', ['admin']);
    member = await t.token('bob', 'acme', []);
    await t.request('GET', '/api/me', { token: admin });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('GET /api/hooks lists every discovered hook, for any member, sorted by priority', async () => {
    const res = await t.request('GET', '/api/hooks', { token: member });
    expect(res.status).toBe(200);
    const mine = res.body.find((h: { name: string }) => h.name === 'big_amount_check');
    expect(mine).toEqual({
      name: 'big_amount_check',
      point: 'PreToolUse',
      priority: 30,
      description: 'Asks for approval of big amounts',
      config_schema: { type: 'object', properties: { limit: { type: 'number', minimum: 0, default: 1000 } } },
      auto_attached: false,
      runs_last: false,
    });
    expect(res.body.find((h: { name: string }) => h.name === 'confirmation_gate')).toMatchObject({
      runs_last: true,
      auto_attached: true,
    });
    const priorities = res.body.map((h: { priority: number }) => h.priority);
    expect(priorities).toEqual([...priorities].sort((a, b) => a - b));
    expect(new Set(res.body.map((h: { name: string }) => h.name)).size).toBe(res.body.length);
  });

  it('GET /api/hooks needs a token', async () => {
    expect((await t.request('GET', '/api/hooks')).status).toBe(401);
  });

  it('POST /api/hooks/dry-run lists each hook verdict for a sample call and changes nothing', async () => {
    const model_config_json = {
      hooks: {
        class_hooks: [{ name: 'big_amount_check', config: { limit: 500 } }],
        yaml: [
          'hooks:',
          '  - name: redact-card',
          '    event: PreToolUse',
          '    module: ./redact-card.mjs',
          '    priority: 20',
          '  - name: deny-prod-deletes',
          '    event: PreToolUse',
          '    matcher: "oa__*"',
          '    run: ./deny-prod-deletes.sh',
          '    priority: 40',
        ].join('\n'),
      },
    };
    const before = await rowCounts(t.databaseUrl);
    const res = await t.request('POST', '/api/hooks/dry-run', {
      token: admin,
      body: { model_config_json, tool: 'oa__purchase_pay', args: { amount: 900, card_number: '4111111111111111' } },
    });
    expect(res.status).toBe(200);
    const verdicts = res.body as Array<{ hook: string; point: string; outcome: string; detail: string | null }>;
    expect(verdicts.filter((v) => ['redact-card', 'big_amount_check', 'deny-prod-deletes'].includes(v.hook))).toEqual([
      {
        hook: 'redact-card',
        point: 'PreToolUse',
        outcome: 'rewrite',
        detail: 'card_number redacted',
        args_after: { amount: 900, card_number: '****1111' },
      },
      {
        hook: 'big_amount_check',
        point: 'PreToolUse',
        outcome: 'would_require_confirmation',
        detail: 'amount over 500',
      },
      { hook: 'deny-prod-deletes', point: 'PreToolUse', outcome: 'allow', detail: null, rule: 'matcher "oa__*"' },
    ]);
    const prod = await t.request('POST', '/api/hooks/dry-run', {
      token: admin,
      body: { model_config_json, tool: 'oa__delete_order', args: { env: 'prod' } },
    });
    expect(prod.body.find((v: { hook: string }) => v.hook === 'deny-prod-deletes')).toEqual({
      hook: 'deny-prod-deletes',
      point: 'PreToolUse',
      outcome: 'block',
      detail: 'deleting in prod needs a change ticket',
      rule: 'matcher "oa__*"',
    });
    expect(await rowCounts(t.databaseUrl)).toEqual(before);
  });

  it("POST /api/hooks/dry-run by agent_id uses the saved agent's hooks; an agent of another org is a 404", async () => {
    const created = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'buyer',
        instructions: 'Pay.',
        model_config_json: {
          model: { provider: 'scripted', model: 'script', script: [{ content: 'done' }] },
          hooks: { class_hooks: [{ name: 'big_amount_check', config: { limit: 10 } }] },
        },
      },
    });
    expect(created.status).toBe(201);
    const res = await t.request('POST', '/api/hooks/dry-run', {
      token: admin,
      body: { agent_id: created.body.id, tool: 'oa__purchase_pay', args: { amount: 11 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.find((v: { hook: string }) => v.hook === 'big_amount_check')).toEqual({
      hook: 'big_amount_check',
      point: 'PreToolUse',
      outcome: 'would_require_confirmation',
      detail: 'amount over 10',
    });
    const stranger = await t.token('eve', 'globex', ['admin']);
    const foreign = await t.request('POST', '/api/hooks/dry-run', {
      token: stranger,
      body: { agent_id: created.body.id, tool: 'oa__purchase_pay', args: {} },
    });
    expect(foreign.status).toBe(404);
  });

  it('POST /api/hooks/dry-run answers 400 naming each problem of a bad config', async () => {
    const res = await t.request('POST', '/api/hooks/dry-run', {
      token: admin,
      body: {
        model_config_json: {
          hooks: {
            class_hooks: ['big_amount_chek', { name: 'big_amount_check', config: { limit: -1 } }],
            yaml: 'hooks:\n  - event: PreToolUse\n    run: ./missing.sh\n',
          },
        },
        tool: 'oa__x',
        args: {},
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual([
      'hooks.class_hooks[0]: unknown hook "big_amount_chek" (did you mean "big_amount_check"?)',
      'hooks.class_hooks[1].config.limit: must be at least 0',
      'hooks.yaml: hooks[0] (line 2): command "./missing.sh" not found in HOOKS_DIR',
    ]);
  });

  it('POST /api/hooks/dry-run rejects a body without agent_id or model_config_json, or with both', async () => {
    const neither = await t.request('POST', '/api/hooks/dry-run', { token: admin, body: { tool: 'oa__x', args: {} } });
    expect(neither.status).toBe(400);
    expect(neither.body.message).toBe('give exactly one of agent_id or model_config_json');
    const noTool = await t.request('POST', '/api/hooks/dry-run', {
      token: admin,
      body: { model_config_json: {}, args: {} },
    });
    expect(noTool.status).toBe(400);
  });

  it('saving an agent with malformed class_hooks is a 400 naming each problem, and nothing is saved', async () => {
    const save = (hooks: unknown) =>
      t.request('POST', '/api/agents', {
        token: admin,
        body: {
          name: 'hooked',
          model_config_json: { model: { provider: 'scripted', script: [{ content: 'hi' }] }, hooks },
        },
      });
    const notAList = await save({ class_hooks: 'big_amount_check' });
    expect(notAList.status).toBe(400);
    expect(notAList.body.problems).toEqual([expect.stringMatching(/hooks\.class_hooks: must be a list/)]);
    const many = await save({
      class_hooks: [
        'no_such_hook',
        { name: 'big_amount_check', config: { limit: 'lots' } },
        42,
        'big_amount_check',
        'big_amount_check',
      ],
    });
    expect(many.status).toBe(400);
    const problems: string[] = many.body.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/hooks\.class_hooks\[0\]: unknown hook "no_such_hook"/),
        expect.stringMatching(/hooks\.class_hooks\[1\]\.config\.limit: /),
        expect.stringMatching(/hooks\.class_hooks\[2\]: /),
        expect.stringMatching(/duplicate/),
      ]),
    );
    expect(
      (await t.request('GET', '/api/agents', { token: admin })).body.map((a: { name: string }) => a.name),
    ).not.toContain('hooked');
    const ok = await save({ class_hooks: [{ name: 'big_amount_check', config: { limit: 10 } }] });
    expect(ok.status).toBe(201);
  });
});
