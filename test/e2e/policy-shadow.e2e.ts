import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import type { HttpFake } from '../fakes/http-fake.js';
import type { TestApp } from '../support/test-app.js';
import { startOaApp, type OaApp } from './oa-app.js';
import { chat, RuntimeTestHooksModule } from './runtime-helpers.js';

/** #34 (shadow mode): a candidate policy decides the same live calls beside the live one, with no side effect. */
describe('shadow policies', () => {
  let app: OaApp;
  let t: TestApp;
  let oa: HttpFake;
  let db: pg.Client;
  let admin: string;
  const hooksDir = mkdtempSync(path.join(tmpdir(), 'warden-policy-shadow-'));
  const BLOCK_PAY = { class_hooks: [{ name: 'test_block_tool', config: { tool: 'oa__purchase_pay' } }] };
  const script = (prefix: string) => ({
    model: {
      provider: 'scripted',
      script: [
        {
          tool_calls: [
            { name: 'oa__get_purchase', args: { id: `${prefix}-1` } },
            { name: 'oa__purchase_pay', args: { id: `${prefix}-2`, amount: 10 } },
            { name: 'oa__purchase_pay', args: { id: `${prefix}-3`, amount: 20 } },
          ],
        },
        { content: 'done' },
      ],
    },
    tools: ['oa__*'],
  });
  const req = (method: string, url: string, body?: unknown, token = admin) => t.request(method, url, { token, body });
  const oaCalls = (prefix: string) => oa.requests.filter((r) => r.path.includes(prefix)).length;
  const confirmations = async () =>
    Number((await db.query(`SELECT count(*) AS n FROM confirmation_requests`)).rows[0].n);

  beforeAll(async () => {
    // A command hook that leaves a file when it runs: a shadow must never run it.
    writeFileSync(path.join(hooksDir, 'touch.sh'), '#!/bin/sh\necho ran >> "$HOME/ran.txt"\nexit 2\n');
    chmodSync(path.join(hooksDir, 'touch.sh'), 0o755);
    app = await startOaApp(() => ({ ok: true }), { env: { HOOKS_DIR: hooksDir }, imports: [RuntimeTestHooksModule] });
    ({ t, oa, db, admin } = app);
  });
  afterAll(async () => {
    await app?.close();
    rmSync(hooksDir, { recursive: true, force: true });
  });

  it("an agent's stricter shadow reports exactly the calls it would have treated differently, with no side effect (acceptance 2)", async () => {
    const agent = await req('POST', '/api/agents', {
      name: 'shadowed',
      instructions: 'x',
      model_config_json: script('SH-A'),
    });
    const id = agent.body.id as string;
    const deployed = await req('POST', `/api/agents/${id}/shadow`, {
      config: { hooks: BLOCK_PAY, require_confirmation_for_all: true },
      comment: 'stricter',
    });
    expect(deployed.status).toBe(201);
    expect(deployed.body).toMatchObject({ live_version: 1, comment: 'stricter' });

    const run = await chat(t, admin, { agent_id: id, message: 'pay' });
    expect(run.events.at(-1)?.event).toBe('done');
    // The live policy decided: all three calls went out, once each; the shadow sent nothing and asked no one.
    expect(oaCalls('SH-A')).toBe(3);
    expect(await confirmations()).toBe(0);

    const report = await req('GET', `/api/agents/${id}/shadow-report`);
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({
      calls_seen: 3,
      differing: 3,
      incomplete: 0,
      counts: { would_ask: 1, would_block: 2 },
    });
    const rows = (report.body.calls as Array<Record<string, any>>).map((c) => [
      c.tool,
      c.args.id,
      c.live.decision,
      c.shadow.decision,
      c.differences,
    ]);
    expect(rows).toEqual([
      ['oa__get_purchase', 'SH-A-1', 'allow', 'ask', ['would_ask']],
      ['oa__purchase_pay', 'SH-A-2', 'allow', 'block', ['would_block']],
      ['oa__purchase_pay', 'SH-A-3', 'allow', 'block', ['would_block']],
    ]);
    expect(report.body.calls[1].shadow).toMatchObject({ blocked_by: 'test_block_tool', approvals: 0 });
    expect(report.body.calls[0].shadow).toMatchObject({ approvals: 1 });
    expect(oaCalls('SH-A')).toBe(3);
    expect(await confirmations()).toBe(0);

    // Promoted, it is the live policy: the next run's pay calls are blocked.
    const promoted = await req('POST', `/api/agents/${id}/shadow/promote`, {});
    expect(promoted.body).toEqual({ promoted: deployed.body.id, version: 2 });
    expect((await req('GET', `/api/agents/${id}/versions/2`)).body).toMatchObject({
      comment: `promoted from shadow ${deployed.body.id}`,
      model_config_json: { hooks: BLOCK_PAY, require_confirmation_for_all: true },
    });
    expect((await req('GET', `/api/agents/${id}/shadow-report`)).status).toBe(404);
  });

  it('an org shadow never runs command hooks (reported as skipped) and can be discarded', async () => {
    const agent = await req('POST', '/api/agents', {
      name: 'org-shadowed',
      instructions: 'x',
      model_config_json: script('SH-B'),
    });
    const yaml =
      'hooks:\n  - name: touch\n    event: PreToolUse\n    matcher: "oa__get_purchase"\n    run: ./touch.sh\n';
    const deployed = await req('POST', '/api/org/hooks/shadow', { config: { ...BLOCK_PAY, yaml } });
    expect(deployed.status).toBe(201);
    expect((await req('POST', '/api/org/hooks/shadow', { config: {} })).status).toBe(409);

    await chat(t, admin, { agent_id: agent.body.id, message: 'pay' });
    expect(oaCalls('SH-B')).toBe(3);
    const report = await req('GET', '/api/org/hooks/shadow-report');
    expect(report.body).toMatchObject({ calls_seen: 3, differing: 2, incomplete: 1, counts: { would_block: 2 } });
    expect((report.body.calls as Array<{ args: { id: string } }>).map((c) => c.args.id)).toEqual(['SH-B-2', 'SH-B-3']);
    expect(existsSync(path.join(hooksDir, 'ran.txt'))).toBe(false);

    expect((await req('POST', '/api/org/hooks/shadow/discard')).status).toBe(200);
    expect((await req('GET', '/api/org/hooks/shadow')).status).toBe(404);
    expect((await req('GET', '/api/org/hooks')).body.hooks).toEqual({});
    const trail = await db.query(
      `SELECT action FROM audit_events WHERE kind = 'config' AND action LIKE 'org_hooks.shadow%' ORDER BY seq`,
    );
    expect(trail.rows.map((r: { action: string }) => r.action)).toEqual([
      'org_hooks.shadow_deployed',
      'org_hooks.shadow_discarded',
    ]);
  });
});
