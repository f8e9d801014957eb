import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import type { HttpFake } from '../fakes/http-fake.js';
import type { TestApp } from '../support/test-app.js';
import { startOaApp, type OaApp } from './oa-app.js';
import { chat, RuntimeTestHooksModule } from './runtime-helpers.js';

/** #34 (versions): every policy change is an immutable, numbered version; diffs, rollback, runs name their versions. */
describe('policy versions', () => {
  let app: OaApp;
  let t: TestApp;
  let oa: HttpFake;
  let db: pg.Client;
  let admin: string;
  let member: string;
  const hooksDir = mkdtempSync(path.join(tmpdir(), 'warden-policy-versions-'));
  const BLOCK_PAY = { class_hooks: [{ name: 'test_block_tool', config: { tool: 'oa__purchase_pay' } }] };
  const payScript = (id: string) => ({
    model: {
      provider: 'scripted',
      script: [{ tool_calls: [{ name: 'oa__purchase_pay', args: { id, amount: 10 } }] }, { content: 'done' }],
    },
    tools: ['oa__*'],
  });
  const req = (method: string, path: string, body?: unknown, token = admin) => t.request(method, path, { token, body });
  const configEvents = async (entityId: string) =>
    (
      await db.query(`SELECT action, payload FROM audit_events WHERE entity_id = $1 AND kind = 'config' ORDER BY seq`, [
        entityId,
      ])
    ).rows.map((r: { action: string; payload: Record<string, unknown> }) => ({
      action: r.action,
      policy_version: r.payload.policy_version,
    }));
  const auditHead = async () =>
    Number((await db.query(`SELECT count(*) AS n FROM audit_events WHERE kind = 'config'`)).rows[0].n);

  beforeAll(async () => {
    copyFileSync(path.resolve('test/fixtures/hooks/deny-prod-deletes.sh'), path.join(hooksDir, 'deny-prod-deletes.sh'));
    app = await startOaApp(() => ({ ok: true }), { env: { HOOKS_DIR: hooksDir }, imports: [RuntimeTestHooksModule] });
    ({ t, oa, db, admin } = app);
    member = await t.token('bob', 'acme', []);
  });
  afterAll(async () => {
    await app?.close();
    rmSync(hooksDir, { recursive: true, force: true });
  });

  it("an agent's policy: a version per policy change (not per rename), diff, rollback as a new version, all in the trail", async () => {
    const created = await req('POST', '/api/agents', {
      name: 'payer',
      instructions: 'x',
      model_config_json: payScript('PO-V-1'),
      comment: 'first',
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const v2 = { ...payScript('PO-V-1'), hooks: BLOCK_PAY, confirmation: { timeout_s: 60 } };
    expect(
      (
        await req('PUT', `/api/agents/${id}`, {
          name: 'payer',
          instructions: 'x',
          model_config_json: v2,
          comment: 'block pay',
        })
      ).status,
    ).toBe(200);
    // A rename changes no policy: no version.
    expect(
      (await req('PUT', `/api/agents/${id}`, { name: 'payer-2', instructions: 'x', model_config_json: v2 })).status,
    ).toBe(200);

    const list = await req('GET', `/api/agents/${id}/versions`, undefined, member);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      expect.objectContaining({
        version: 1,
        comment: 'first',
        created_by: expect.any(String),
        rolled_back_to: null,
        mode: 'live',
      }),
      expect.objectContaining({ version: 2, comment: 'block pay', rolled_back_to: null }),
    ]);
    expect((await req('GET', `/api/agents/${id}/versions/1`)).body.model_config_json).toEqual({});
    expect((await req('GET', `/api/agents/${id}/versions/2`)).body.model_config_json).toEqual({
      hooks: BLOCK_PAY,
      confirmation: { timeout_s: 60 },
    });
    const diff = await req('GET', `/api/agents/${id}/versions/diff?from=1&to=2`);
    expect(diff.body).toEqual({
      from: 1,
      to: 2,
      changes: [
        { op: 'add', path: '/confirmation', after: { timeout_s: 60 } },
        { op: 'add', path: '/hooks', after: BLOCK_PAY },
      ],
    });
    const back = await req('GET', `/api/agents/${id}/versions/diff?from=2&to=1`);
    expect(back.body.changes.map((c: { op: string; path: string }) => `${c.op} ${c.path}`)).toEqual([
      'remove /confirmation',
      'remove /hooks',
    ]);

    const rolled = await req('POST', `/api/agents/${id}/rollback`, { version: 1, comment: 'too strict' });
    expect(rolled.status).toBe(200);
    // The policy is version 1's again; the rest of the config (the rename) stays.
    expect(rolled.body).toMatchObject({ name: 'payer-2', model_config_json: payScript('PO-V-1') });
    expect((await req('GET', `/api/agents/${id}/versions/3`)).body).toMatchObject({
      version: 3,
      rolled_back_to: 1,
      comment: 'too strict',
      model_config_json: {},
    });

    expect(await configEvents(id)).toEqual([
      { action: 'agent.created', policy_version: { version: 1, created: true, comment: 'first' } },
      { action: 'agent.updated', policy_version: { version: 2, created: true, comment: 'block pay' } },
      { action: 'agent.updated', policy_version: { version: 2, created: false } },
      {
        action: 'agent.rolled_back',
        policy_version: { version: 3, created: true, rolled_back_to: 1, comment: 'too strict' },
      },
    ]);
    expect((await req('GET', '/api/audit/verify')).body).toMatchObject({ valid: true });
  });

  it('org hooks: change as a new version, roll back, and a run names the versions it ran under (acceptance 1)', async () => {
    const agent = await req('POST', '/api/agents', {
      name: 'org-payer',
      instructions: 'x',
      model_config_json: payScript('PO-V-2'),
    });
    const orgId = (await db.query(`SELECT org_id FROM agents WHERE id = $1`, [agent.body.id])).rows[0].org_id as string;
    expect((await req('PUT', '/api/org/hooks', { ...BLOCK_PAY, comment: 'no payments' })).status).toBe(200);
    expect((await req('PUT', '/api/org/hooks', { class_hooks: [] })).status).toBe(200);

    const open = await chat(t, admin, { agent_id: agent.body.id, message: 'pay' });
    const openRun = await req('GET', `/api/runs/${open.events[0].data.run_id}`);
    expect(openRun.body.policy_versions).toEqual({ agent: 1, org_hooks: 2 });
    expect(oa.requests.filter((r) => r.path.includes('PO-V-2'))).toHaveLength(1);

    const rolled = await req('POST', '/api/org/hooks/rollback', { version: 1 });
    expect(rolled.status).toBe(200);
    expect(rolled.body.hooks).toEqual(BLOCK_PAY);
    const blocked = await chat(t, admin, { agent_id: agent.body.id, message: 'pay' });
    expect(blocked.events.find((e) => e.event === 'observation')!.data).toMatchObject({
      blocked: true,
      blocked_by: 'test_block_tool',
    });
    const blockedRun = await req('GET', `/api/runs/${blocked.events[0].data.run_id}`);
    expect(blockedRun.body.policy_versions).toEqual({ agent: 1, org_hooks: 3 });
    expect(oa.requests.filter((r) => r.path.includes('PO-V-2'))).toHaveLength(1);

    const versions = await req('GET', '/api/org/hooks/versions');
    expect(
      versions.body.map((v: { version: number; rolled_back_to: number | null }) => [v.version, v.rolled_back_to]),
    ).toEqual([
      [1, null],
      [2, null],
      [3, 1],
    ]);
    expect((await req('GET', '/api/org/hooks/versions/diff?from=1&to=2')).body.changes).toEqual([
      { op: 'remove', path: '/class_hooks/0', before: BLOCK_PAY.class_hooks[0] },
    ]);
    expect((await req('GET', '/api/org/hooks/versions', undefined, member)).status).toBe(403);
    expect(await configEvents(orgId)).toEqual([
      { action: 'org_hooks.updated', policy_version: { version: 1, created: true, comment: 'no payments' } },
      { action: 'org_hooks.updated', policy_version: { version: 2, created: true } },
      { action: 'org_hooks.rolled_back', policy_version: { version: 3, created: true, rolled_back_to: 1 } },
    ]);
  });

  it('bad input names the problem (4xx, never a 500) and changes nothing', async () => {
    const agent = await req('POST', '/api/agents', {
      name: 'bad-input',
      instructions: 'x',
      model_config_json: payScript('PO-V-3'),
    });
    const id = agent.body.id as string;
    const head = await auditHead();
    const cases: Array<[string, string, unknown, number, string]> = [
      ['GET', `/api/agents/${id}/versions/abc`, undefined, 400, 'version must be a version number'],
      ['GET', `/api/agents/${id}/versions/1.5`, undefined, 400, 'version must be a version number'],
      ['GET', `/api/agents/${id}/versions/7`, undefined, 404, 'policy version 7 not found'],
      ['GET', `/api/agents/${id}/versions/diff?from=1`, undefined, 400, 'to must be a version number'],
      ['GET', `/api/agents/${id}/versions/diff?from=1&to=9`, undefined, 404, 'policy version 9 not found'],
      ['GET', '/api/agents/not-an-agent/versions', undefined, 404, 'agent not-an-agent not found'],
      ['POST', `/api/agents/${id}/rollback`, { version: 9 }, 400, `version 9 is not a policy version of agent ${id}`],
      ['POST', `/api/agents/${id}/rollback`, { version: 'one' }, 400, 'version'],
      ['POST', `/api/agents/${id}/rollback`, {}, 400, 'version'],
      ['POST', '/api/org/hooks/rollback', { version: 99 }, 400, 'version 99 is not a version of the org hooks'],
      ['GET', '/api/org/hooks/versions/0', undefined, 400, 'version must be a version number'],
    ];
    for (const [method, path, body, status, text] of cases) {
      const res = await req(method, path, body);
      expect({ path, body, status: res.status }).toEqual({ path, body, status });
      expect(res.text).toContain(text);
    }
    expect((await req('POST', `/api/agents/${id}/rollback`, { version: 1 }, member)).status).toBe(403);
    expect((await req('GET', `/api/agents/${id}/versions`)).body).toHaveLength(1);
    expect(await auditHead()).toBe(head);
  });

  it('a rollback is validated like a save: a version that no longer builds is refused (400 naming it), nothing changes', async () => {
    const agent = await req('POST', '/api/agents', {
      name: 'yaml-payer',
      instructions: 'x',
      model_config_json: payScript('PO-V-5'),
    });
    const id = agent.body.id as string;
    const yaml =
      'hooks:\n  - name: deny-prod\n    event: PreToolUse\n    matcher: "oa__*"\n    run: ./deny-prod-deletes.sh\n';
    const saved = await req('PUT', `/api/agents/${id}`, {
      name: 'yaml-payer',
      instructions: 'x',
      model_config_json: { ...payScript('PO-V-5'), hooks: { yaml } },
    });
    expect(saved.status).toBe(200);
    expect(
      (
        await req('PUT', `/api/agents/${id}`, {
          name: 'yaml-payer',
          instructions: 'x',
          model_config_json: payScript('PO-V-5'),
        })
      ).status,
    ).toBe(200);
    rmSync(path.join(hooksDir, 'deny-prod-deletes.sh'));
    const head = await auditHead();

    const refused = await req('POST', `/api/agents/${id}/rollback`, { version: 2 });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('deny-prod-deletes.sh');
    expect(((await req('GET', `/api/agents/${id}/versions`)).body as unknown[]).length).toBe(3);
    expect((await req('GET', `/api/agents/${id}`)).body.model_config_json).toEqual(payScript('PO-V-5'));
    expect(await auditHead()).toBe(head);
  });
});
