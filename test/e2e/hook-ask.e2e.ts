import { Injectable, Module } from '@nestjs/common';
import { Hook, PreToolUseHook, type HookContext, type HookResult } from '@warden/hooks';
import path from 'node:path';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { adminLink, click, FEISHU_APP, feishuChannel, person, type Person } from './approver-support.js';
import { OA_ACTIONS, openChat } from './runtime-helpers.js';

const HOOKS_DIR = path.resolve('test/fixtures/hooks');

/** Test: a class hook that asks for a human when the memo says "urgent". */
@Hook({ name: 'test_ask_urgent', priority: 20, description: 'Test: asks a human for urgent payments.' })
@Injectable()
class TestAskUrgentHook extends PreToolUseHook {
  execute(ctx: HookContext): HookResult {
    return ctx.toolArgs.memo === 'urgent'
      ? { ask: 'urgent payments skip the usual review', sideEffects: ['asked'] }
      : {};
  }
}
@Module({ providers: [TestAskUrgentHook] })
class AskHooksModule {}

/**
 * Hooks can ask (issue #20, acceptance 5): a hook answering Claude Code's `permissionDecision: "ask"` neither allows
 * nor blocks — the gate handles the call as if the action required confirmation, and the card shows the hook's reason.
 */
describe('hooks can ask for a human (YAML and class hooks, Feishu fake, PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let feishu: FakeFeishu;
  let admin: Person;
  let channelId: string;

  const createAgent = async (args: Record<string, unknown>, hooks: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin.token,
      body: {
        name: `ask-${Math.random()}`,
        model_config_json: {
          tools: ['oa__*'],
          hooks,
          model: {
            provider: 'scripted',
            script: [{ tool_calls: [{ name: 'oa__purchase_pay', args }] }, { content: 'done' }],
          },
          confirmation: { channel_id: channelId, approvers: ['org_admins'] },
        },
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const paysOf = (po: string) => oa.requests.filter((r) => r.path === `/purchases/${po}/pay`);
  const askYaml = [
    'hooks:',
    '  - name: new-vendor',
    '    event: PreToolUse',
    '    matcher: "oa__*"',
    '    run: ./ask-new-vendor.sh',
  ].join('\n');
  const cardText = (confirmationId: string) => {
    const card = feishu.sent.find((m) => JSON.stringify(m.content).includes(confirmationId));
    return card ? JSON.stringify(card.content) : undefined;
  };

  beforeAll(async () => {
    oa = await startHttpFake(() => ({ paid: true }));
    feishu = await startFakeFeishu(FEISHU_APP);
    t = await startTestApp({ HOOKS_DIR }, { imports: [AskHooksModule] });
    admin = await person(t, 'ada', 'acme-ask', ['admin']);
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: admin.token,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
    channelId = await feishuChannel(t, admin, feishu);
    await adminLink(t, admin, 'ada', 'ou_ada');
  });
  afterAll(async () => {
    await t?.close();
    await oa?.close();
    await feishu?.close();
  });

  it('a YAML hook returning "ask" -> a Feishu card with the hook\'s reason; approve -> runs once', async () => {
    const agent = await createAgent({ id: 'PO-ASK', amount: 100, vendor: 'V-NEW' }, { yaml: askYaml });
    const run = openChat(t, admin.token, { agent_id: agent, message: 'pay PO-ASK' });
    const pending = (await run.next('confirmation_pending')).data;
    const hookEvent = run.events.find((e) => e.event === 'hook' && e.data.hook === 'new-vendor')!.data;
    expect(hookEvent.outcome).toBe('ask');
    const text = await until('the Feishu card', () => cardText(pending.confirmation_id));
    expect(text).toContain('never paid before');
    expect(text).toMatch(/new\\\\-vendor/); // the reason names the hook (markdown-escaped)
    const row = (await t.request('GET', `/api/confirmations/${pending.confirmation_id}`, { token: admin.token })).body;
    expect(row.ask_reason).toBe('new-vendor: vendor V-NEW was never paid before');
    expect(paysOf('PO-ASK')).toHaveLength(0);

    expect((await click(t, channelId, pending.confirmation_id, 'ou_ada')).ok).toBe(true);
    await run.finished;
    expect(paysOf('PO-ASK').map((r) => r.body)).toEqual([{ amount: 100, vendor: 'V-NEW' }]);
  });

  it("a card asked by the action's own rule says which rule, and the member's message is on the request (#32)", async () => {
    const agent = await createAgent({ id: 'PO-RULE', amount: 60000 }, {});
    const run = openChat(t, admin.token, { agent_id: agent, message: 'pay PO-RULE for the new laptops' });
    const pending = (await run.next('confirmation_pending')).data;
    const text = await until('the Feishu card', () => cardText(pending.confirmation_id));
    expect(text).toContain('**Why:** the rule args.amount &#62; 50000 holds for these arguments');
    const row = (await t.request('GET', `/api/confirmations/${pending.confirmation_id}`, { token: admin.token })).body;
    expect(row).toMatchObject({
      trigger: 'args.amount > 50000',
      ask_reason: null,
      member_message: 'pay PO-RULE for the new laptops',
    });
    await t.request('POST', `/api/confirmations/${pending.confirmation_id}/decision`, {
      token: admin.token,
      body: { decision: 'reject' },
    });
    await run.finished;
  });

  it('the same hook with nothing to ask lets a small payment run without a card', async () => {
    const agent = await createAgent({ id: 'PO-OLD', amount: 100, vendor: 'V-OLD' }, { yaml: askYaml });
    const cards = feishu.sent.length;
    const run = openChat(t, admin.token, { agent_id: agent, message: 'pay PO-OLD' });
    await run.finished;
    expect(run.events.some((e) => e.event === 'confirmation_pending')).toBe(false);
    expect(feishu.sent.length).toBe(cards);
    expect(paysOf('PO-OLD')).toHaveLength(1);
  });

  it('a class hook asking, then a rejection from the inbox -> blocked, nothing sent', async () => {
    const agent = await createAgent(
      { id: 'PO-URG', amount: 100, memo: 'urgent' },
      { class_hooks: ['test_ask_urgent'] },
    );
    const run = openChat(t, admin.token, { agent_id: agent, message: 'pay PO-URG' });
    const pending = (await run.next('confirmation_pending')).data;
    expect(await until('the Feishu card', () => cardText(pending.confirmation_id))).toContain(
      'urgent payments skip the usual review',
    );
    const res = await t.request('POST', `/api/confirmations/${pending.confirmation_id}/decision`, {
      token: admin.token,
      body: { decision: 'reject' },
    });
    expect(res.status).toBe(200);
    const events = await run.finished;
    expect(events.find((e) => e.event === 'observation')!.data).toMatchObject({
      blocked: true,
      blocked_by: 'confirmation_gate',
    });
    expect(paysOf('PO-URG')).toHaveLength(0);
  });

  it('the dry run reports the ask, and the gate as the step that would wait', async () => {
    const res = await t.request('POST', '/api/hooks/dry-run', {
      token: admin.token,
      body: {
        model_config_json: { hooks: { yaml: askYaml } },
        tool: 'oa__purchase_pay',
        args: { id: 'PO-D', amount: 1, vendor: 'V-NEW' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.find((v: any) => v.hook === 'new-vendor')).toMatchObject({ outcome: 'ask' });
    expect(res.body.find((v: any) => v.hook === 'confirmation_gate')).toMatchObject({
      outcome: 'would_require_confirmation',
    });
  });
});
