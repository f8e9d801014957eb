import path from 'node:path';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { bootExpectingFailure } from '../support/server-process.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, OA_ACTIONS } from './runtime-helpers.js';

const HOOKS_DIR = path.resolve('test/fixtures/hooks');
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
/** The production settings the boot requires with dev tokens (see environment.ts productionProblems). */
const PRODUCTION = { NODE_ENV: 'production', AUTH_ALLOW_DEV_IN_PRODUCTION: '1' };

const scrape = (t: TestApp, token?: string) =>
  fetch(`${t.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

/**
 * Issue #29 break 7: /metrics was public by default in production and its labels carried strings chosen by tenants
 * and models (hook names from an org's YAML, tool names the model invented): a leak, and unbounded series.
 */
describe('/metrics in production: who may scrape, and which labels it shows (PostgreSQL)', () => {
  describe('access', () => {
    let apps: TestApp[] = [];
    afterAll(async () => {
      await Promise.all(apps.map((a) => a.close()));
      apps = [];
    });
    const boot = async (env: Record<string, string>) => {
      const t = await startTestApp({ ...PRODUCTION, ...env });
      apps.push(t);
      return t;
    };

    it('without METRICS_TOKEN metrics are off (404): nothing is published by default', async () => {
      const t = await boot({});
      const res = await scrape(t);
      expect(res.status).toBe(404);
      expect(await res.text()).toMatch(/METRICS_TOKEN/);
    });

    it('with METRICS_TOKEN only its bearer scrapes (401 otherwise)', async () => {
      const t = await boot({ METRICS_TOKEN });
      expect((await scrape(t)).status).toBe(401);
      expect((await scrape(t, 'wrong-token-0123456789abcdef')).status).toBe(401);
      const ok = await scrape(t, METRICS_TOKEN);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toMatch(/warden_http_request_duration_seconds/);
    });

    it('METRICS_PUBLIC=1 opens it without a token (a private scrape network)', async () => {
      const t = await boot({ METRICS_PUBLIC: '1' });
      expect((await scrape(t)).status).toBe(200);
    });
  });

  describe('labels', () => {
    let t: TestApp;
    let oa: HttpFake;

    beforeAll(async () => {
      oa = await startHttpFake(() => ({ paid: true, contact: 'ap@acme-secret.example' }));
      t = await startTestApp({ ...PRODUCTION, METRICS_TOKEN, HOOKS_DIR });
    });
    afterAll(async () => {
      await t?.close();
      await oa?.close();
    });

    it('hook and tool labels come from bounded sets: an org YAML hook and a tool the model invented are "other"', async () => {
      const admin = await t.token('root', 'acme-secret-org', ['admin']);
      const connector = await t.request('POST', '/api/connectors', {
        token: admin,
        body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
      });
      expect(connector.status).toBe(201);
      const agent = await t.request('POST', '/api/agents', {
        token: admin,
        body: {
          name: 'payer',
          model_config_json: {
            tools: ['oa__*'],
            hooks: {
              yaml: 'hooks:\n  - name: acme-secret-masking\n    event: PostToolUse\n    matcher: "oa__*"\n    module: ./mask-emails.mjs\n',
            },
            model: {
              provider: 'scripted',
              script: [
                { tool_calls: [{ name: 'zz_invented_tool_7f3a', args: {} }] },
                { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-1', amount: 10 } }] },
                { content: 'paid' },
              ],
            },
          },
        },
      });
      expect(agent.status).toBe(201);
      const run = await chat(t, admin, { agent_id: agent.body.id, message: 'pay PO-1' });
      expect(run.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });

      const text = await (await scrape(t, METRICS_TOKEN)).text();
      const labelled = text
        .split('\n')
        .filter((l) => l.startsWith('warden_tool_calls_total') || l.startsWith('warden_hook_outcomes_total'));
      expect(labelled).toEqual(
        expect.arrayContaining([
          'warden_tool_calls_total{tool="other",outcome="failed"} 1',
          'warden_tool_calls_total{tool="oa__purchase_pay",outcome="done"} 1',
          expect.stringMatching(/^warden_hook_outcomes_total\{hook="other",point="PostToolUse",outcome="[a-z_]+"\} 1$/),
        ]),
      );
      for (const chosenByTenantOrModel of [
        'zz_invented_tool_7f3a',
        'acme-secret-masking',
        'acme-secret-org',
        'acme-secret',
      ])
        expect(text).not.toContain(chosenByTenantOrModel);
    });
  });

  it.each([
    ['METRICS_PUBLIC', { METRICS_PUBLIC: 'maybe' }],
    ['METRICS_TOKEN', { METRICS_TOKEN: 'short' }],
    ['METRICS_PUBLIC=1 and METRICS_TOKEN', { METRICS_PUBLIC: '1', METRICS_TOKEN }],
  ])('a malformed %s stops the boot naming it', async (name, env) => {
    const boot = await bootExpectingFailure({ ...env, DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    expect(boot.code).not.toBe(0);
    expect(boot.output).toContain(name);
    expect(boot.output).toMatch(/Invalid configuration/);
  });
});
