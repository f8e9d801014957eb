import path from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * #31 break 6: the dry run named "initiator" as approver for an org_admins policy, ignored tiers, did not say which
 * rule fired and said "rewrite" without the args after it. Each verdict now carries what the screen needs.
 */
const HOOKS_DIR = path.resolve('test/fixtures/hooks');
const YAML = [
  'hooks:',
  '  - name: redact-card',
  '    event: PreToolUse',
  '    matcher: "oa__*"',
  '    if: has(args.card_number)',
  '    module: ./redact-card.mjs',
].join('\n');
const MODEL_CONFIG = {
  model: { provider: 'scripted', script: [{ content: 'done' }] },
  require_confirmation_for_all: true,
  confirmation: {
    approvers: ['org_admins'],
    forbid_self_approval: true,
    tiers: [
      { when: 'args.amount > 500000', approvals: 2 },
      { when: 'args.amount > 50000', approvals: 1, approvers: ['role:finance'] },
    ],
  },
  hooks: { class_hooks: [], yaml: YAML },
};
const ARGS = { amount: 68000, card_number: '4111111111111111' };

interface Verdict {
  hook: string;
  outcome: string;
  detail: string | null;
  args_after?: Record<string, unknown>;
  rule?: string;
  approvers?: string[];
  tier?: { index: number; when: string; approvals: number; approvers?: string[] };
}

describe('dry run: rule, tier, approver policy and args after each rewrite (#31 break 6)', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp({ HOOKS_DIR });
    admin = await t.token('alice', 'acme', ['admin']);
  });
  afterAll(async () => {
    await t?.close();
  });

  const dryRun = async (body: Record<string, unknown>): Promise<Verdict[]> => {
    const res = await t.request('POST', '/api/hooks/dry-run', {
      token: admin,
      body: { tool: 'oa__purchase_pay', args: ARGS, ...body },
    });
    expect(res.status).toBe(200);
    return res.body as Verdict[];
  };

  it('an unsaved config: the rewrite shows its args and its rule, the gate its real approvers and tier', async () => {
    const verdicts = await dryRun({ model_config_json: MODEL_CONFIG });
    const redact = verdicts.find((v) => v.hook === 'redact-card');
    expect(redact).toMatchObject({
      outcome: 'rewrite',
      args_after: { amount: 68000, card_number: '****1111' },
      rule: 'matcher "oa__*", if has(args.card_number)',
    });
    const gate = verdicts.find((v) => v.hook === 'confirmation_gate');
    expect(gate).toMatchObject({
      outcome: 'would_require_confirmation',
      rule: 'require_confirmation_for_all',
      approvers: ['role:finance'],
      tier: { index: 1, when: 'args.amount > 50000', approvals: 1, approvers: ['role:finance'] },
    });
    expect(gate?.detail).not.toMatch(/initiator/);
    expect(gate?.args_after).toBeUndefined();
  });

  it('below every tier the policy approvers apply; a saved agent gives the same answer', async () => {
    const low = await dryRun({ model_config_json: MODEL_CONFIG, args: { amount: 10 } });
    const gate = low.find((v) => v.hook === 'confirmation_gate');
    expect(gate).toMatchObject({ approvers: ['org_admins'], rule: 'require_confirmation_for_all' });
    expect(gate?.tier).toBeUndefined();
    expect(gate?.detail).toMatch(/org_admins/);
    // The YAML hook's condition does not hold: it is skipped and says nothing.
    expect(low.find((v) => v.hook === 'redact-card')).toBeUndefined();

    const saved = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name: 'payer', instructions: '', model_config_json: MODEL_CONFIG },
    });
    expect(saved.status).toBe(201);
    const byId = await dryRun({ agent_id: saved.body.id, args: { amount: 900000, card_number: '5500000000000004' } });
    expect(byId.find((v) => v.hook === 'confirmation_gate')).toMatchObject({
      approvers: ['org_admins'],
      tier: { index: 0, when: 'args.amount > 500000', approvals: 2 },
    });
    expect(byId.find((v) => v.hook === 'redact-card')?.args_after).toEqual({ amount: 900000, card_number: '****0004' });
  });

  it('POST /api/hooks/cel-check checks a tier condition as a save would and evaluates it on example args', async () => {
    const check = async (expression: string, args: Record<string, unknown>) =>
      (await t.request('POST', '/api/hooks/cel-check', { token: admin, body: { expression, args } })).body;
    expect(await check('args.amount > 50000', { amount: 68000 })).toEqual({
      valid: true,
      problem: null,
      holds: true,
      error: null,
    });
    expect(await check('args.amount > 50000', { amount: 10 })).toMatchObject({ valid: true, holds: false });
    expect(await check('args.amount >', {})).toMatchObject({ valid: false, holds: null, problem: expect.any(String) });
    expect(await check('args.amount + 1', { amount: 1 })).toMatchObject({
      valid: false,
      problem: expect.stringMatching(/bool/),
    });
    // A missing key cannot be evaluated: the tier counts as holding (fail closed), and the answer says why.
    expect(await check('args.amount > 5', {})).toMatchObject({
      valid: true,
      holds: true,
      error: expect.stringMatching(/holding/),
    });
    const empty = await t.request('POST', '/api/hooks/cel-check', { token: admin, body: { expression: '' } });
    expect(empty.status).toBe(400);
  });

  it('POST /api/agents/validate names what a save would refuse, by path, and saves nothing', async () => {
    const validate = async (model_config_json: Record<string, unknown>) =>
      t.request('POST', '/api/agents/validate', { token: admin, body: { model_config_json } });
    expect((await validate(MODEL_CONFIG)).body).toEqual({ problems: [] });
    const bad = await validate({
      ...MODEL_CONFIG,
      confirmation: { approvers: ['org_admins'], tiers: [{ when: 'args.amount >', approvals: 1 }] },
      hooks: { yaml: 'hooks:\n  - event: PreToolUse\n    module: ./no-such.mjs\n' },
    });
    expect(bad.status).toBe(200);
    expect(bad.body.problems).toEqual([
      expect.stringMatching(
        /^model_config_json\.confirmation\.tiers\[0\]\.when "args.amount >" is not a valid CEL condition/,
      ),
      expect.stringMatching(/^hooks\.yaml: hooks\[0\] \(line 2\): module "\.\/no-such\.mjs"/),
    ]);
    const member = await t.token('bob', 'acme', []);
    const refused = await t.request('POST', '/api/agents/validate', { token: member, body: { model_config_json: {} } });
    expect(refused.status).toBe(403);
  });
});
