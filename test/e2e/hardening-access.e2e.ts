import path from 'node:path';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat } from './runtime-helpers.js';

const HOOKS_DIR = path.resolve('test/fixtures/hooks');
const FEISHU = { appId: 'cli_test', appSecret: 'feishu-app-secret-XYZ', verificationToken: 'feishu-verif-TOKEN' };

/** Breaks tried with a member's or an org admin's token: who may do what, and where secrets and paths may go. */
describe('access hardening', () => {
  let t: TestApp;
  let oa: HttpFake;
  let admin: string;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    oa = await startHttpFake((req) => ({ ok: true, path: req.path }));
    t = await startTestApp({ HOOKS_DIR });
    admin = await t.token('root', 'acme', ['admin']);
    alice = await t.token('alice', 'acme', []);
    bob = await t.token('bob', 'acme', []);
    const connector = await t.request('POST', '/api/connectors', {
      token: admin,
      body: {
        name: 'oa',
        base_url: oa.url,
        actions: [{ name: 'purchase_pay', method: 'POST', path: '/purchases/{id}/pay' }],
      },
    });
    expect(connector.status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
    await oa.close();
  });

  const scripted = async (name: string, script: unknown[], tools: string[] = []) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name, model_config_json: { model: { provider: 'scripted', script }, tools } },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  describe('dry-run', () => {
    const yaml = (matcher: string) => ({
      hooks: {
        yaml: `hooks:\n  - name: m\n    event: PreToolUse\n    matcher: "${matcher}"\n    run: ./deny-prod-deletes.sh\n`,
      },
    });

    it('a member may not run hook programs through the dry-run endpoint (403)', async () => {
      const res = await t.request('POST', '/api/hooks/dry-run', {
        token: alice,
        body: { model_config_json: yaml('oa__*'), tool: 'oa__delete_order', args: { env: 'prod' } },
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/admin role/);
    });

    it('a catastrophic-backtracking matcher answers at once (RE2), and the server stays responsive', async () => {
      const res = await t.request('POST', '/api/hooks/dry-run', {
        token: admin,
        body: { model_config_json: yaml('/(a+)+$/'), tool: `${'a'.repeat(30)}!`, args: {} },
      });
      expect(res.status).toBe(200);
      expect(res.body.find((v: { hook: string }) => v.hook === 'm')).toBeUndefined();
      expect((await t.request('GET', '/api/health')).status).toBe(200);
    }, 10_000);

    it('a matcher RE2 cannot run in linear time (backreference) is a 400 naming it', async () => {
      const res = await t.request('POST', '/api/hooks/dry-run', {
        token: admin,
        body: { model_config_json: yaml('/(a)\\\\1/'), tool: 'oa__x', args: {} },
      });
      expect(res.status).toBe(400);
      expect(res.body.problems.join(' ')).toMatch(/matcher: invalid regular expression.*RE2 syntax/);
    });
  });

  describe('run privacy', () => {
    it('a member reads, follows and cancels only their own runs; an admin reads all in the org', async () => {
      const agentId = await scripted('private', [{ content: 'the secret answer' }]);
      const mine = await chat(t, alice, { agent_id: agentId, message: 'my private question' });
      const runId = mine.events[0].data.run_id as string;
      expect((await t.request('GET', `/api/runs/${runId}`, { token: alice })).body.answer).toBe('the secret answer');
      for (const [method, p] of [
        ['GET', `/api/runs/${runId}`],
        ['GET', `/api/runs/${runId}/events`],
        ['POST', `/api/runs/${runId}/cancel`],
      ] as const) {
        const res = await t.request(method, p, { token: bob });
        expect(res.status).toBe(404);
        expect(res.text).not.toContain('my private question');
      }
      const asAdmin = await t.request('GET', `/api/runs/${runId}`, { token: admin });
      expect(asAdmin.body.message).toBe('my private question');
    });
  });

  describe('eval privacy', () => {
    it('evals are admin-only to read too: a member gets 403 and none of its cases or answers', async () => {
      const agentId = await scripted('evaluated', [{ content: 'the graded answer' }]);
      const created = await t.request('POST', '/api/evals', {
        token: admin,
        body: { agent_id: agentId, cases: [{ input: 'the graded question' }] },
      });
      expect(created.status).toBe(202);
      const res = await t.request('GET', `/api/evals/${created.body.id}`, { token: alice });
      expect(res.status).toBe(403);
      expect(res.text).not.toMatch(/the graded (question|answer)/);
      expect((await t.request('GET', `/api/evals/${created.body.id}`, { token: admin })).status).toBe(200);
    });
  });

  describe('inbox privacy', () => {
    it('a member sees only the inbox messages of runs they started; an admin sees all of the org', async () => {
      const notify = (text: string) => [
        { tool_calls: [{ name: 'channel_notify', args: { channel_id: 'inbox', text } }] },
        { content: 'sent' },
      ];
      const forAlice = await scripted('herald-a', notify('salary review for alice'), ['channel_notify']);
      const forBob = await scripted('herald-b', notify('salary review for bob'), ['channel_notify']);
      const runOf = async (token: string, agentId: string) => {
        const res = await chat(t, token, { agent_id: agentId, message: 'notify' });
        expect(res.events.at(-1)!.data.status).toBe('completed');
        return res.events[0].data.run_id as string;
      };
      const [aliceRun, bobRun] = [await runOf(alice, forAlice), await runOf(bob, forBob)];
      const inbox = async (token: string) => {
        const res = await t.request('GET', '/api/notifications', { token });
        expect(res.status).toBe(200);
        return (res.body as Array<{ run_id: string; text: string }>).map((n) => [n.run_id, n.text]);
      };
      expect(await inbox(alice)).toEqual([[aliceRun, 'salary review for alice']]);
      expect(await inbox(bob)).toEqual([[bobRun, 'salary review for bob']]);
      expect(await inbox(admin)).toEqual(
        expect.arrayContaining([
          [aliceRun, 'salary review for alice'],
          [bobRun, 'salary review for bob'],
        ]),
      );
    });
  });

  describe('connector paths', () => {
    it.each(['..', '.'])('a path argument %j is refused with an observation; nothing is sent', async (id) => {
      const agentId = await scripted(
        `pay-${id.length}`,
        [{ tool_calls: [{ name: 'oa__purchase_pay', args: { id, amount: 1 } }] }, { content: 'done' }],
        ['oa__purchase_pay'],
      );
      const before = oa.requests.length;
      const res = await chat(t, admin, { agent_id: agentId, message: 'pay' });
      const observation = res.events.find((e) => e.event === 'observation');
      expect(observation?.data.content).toMatch(/path argument id may not be "\." or "\.\."/);
      expect(oa.requests.length).toBe(before);
    });

    it('an empty path argument is refused with an observation naming it; nothing is sent', async () => {
      const agentId = await scripted(
        'pay-empty',
        [{ tool_calls: [{ name: 'oa__purchase_pay', args: { id: '', amount: 1 } }] }, { content: 'done' }],
        ['oa__purchase_pay'],
      );
      const before = oa.requests.length;
      const res = await chat(t, admin, { agent_id: agentId, message: 'pay' });
      expect(res.events.find((e) => e.event === 'observation')?.data.content).toMatch(/missing path argument: id/);
      expect(oa.requests.length).toBe(before);
    });

    it('a path argument with slashes stays one encoded segment', async () => {
      const agentId = await scripted(
        'pay-slash',
        [{ tool_calls: [{ name: 'oa__purchase_pay', args: { id: '../../admin', amount: 1 } }] }, { content: 'done' }],
        ['oa__purchase_pay'],
      );
      await chat(t, admin, { agent_id: agentId, message: 'pay' });
      expect(oa.requests.at(-1)?.url).toBe('/purchases/..%2F..%2Fadmin/pay');
    });
  });

  describe('channel secrets follow their destination', () => {
    let feishu: FakeFeishu;
    let evil: HttpFake;
    beforeAll(async () => {
      feishu = await startFakeFeishu(FEISHU);
      evil = await startHttpFake(() => ({ code: 0, tenant_access_token: 't', expire: 7200 }));
    });
    afterAll(async () => {
      await feishu.close();
      await evil.close();
    });

    it('PUT of only a new base_url (or app_id) is a 400 naming the secrets to re-enter; /test still goes to the old address', async () => {
      const created = await t.request('POST', '/api/channels', {
        token: admin,
        body: {
          type: 'feishu',
          name: 'ops',
          config: {
            app_id: FEISHU.appId,
            app_secret: FEISHU.appSecret,
            chat_id: 'oc_ops',
            verification_token: FEISHU.verificationToken,
            base_url: feishu.url,
          },
        },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      for (const change of [{ base_url: evil.url }, { app_id: 'cli_other' }]) {
        const put = await t.request('PUT', `/api/channels/${id}`, { token: admin, body: { config: change } });
        expect(put.status).toBe(400);
        expect(put.body.problems[0]).toMatch(/requires re-entering the stored secrets: app_secret, verification_token/);
      }
      await t.request('POST', `/api/channels/${id}/test`, { token: admin });
      expect(evil.requests.map((r) => r.rawBody).join('')).not.toContain(FEISHU.appSecret);
      const rebound = await t.request('PUT', `/api/channels/${id}`, {
        token: admin,
        body: {
          config: {
            base_url: evil.url,
            app_secret: 'new-secret-for-new-host',
            verification_token: 'new-verif',
          },
        },
      });
      expect(rebound.status).toBe(200);
      expect(rebound.body.config.base_url).toBe(evil.url);
    });
  });
});
