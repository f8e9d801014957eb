import { randomUUID } from 'node:crypto';
import { ConfirmationGateHook } from '@warden/confirmations';
import { HookPoint, type AgentHookSettings, type HookContext, type HookResult } from '@warden/hooks';
import { feishuCardAction, feishuRequest, type FakeFeishu } from '../fakes/fake-feishu.js';
import { until } from '../support/eventually.js';
import type { TestApp } from '../support/test-app.js';

/** Shared by the approver-policy suites: people, a Feishu channel on the fake, the gate run directly, signed clicks. */
export interface Person {
  sub: string;
  token: string;
  userId: string;
  orgId: string;
}

export const FEISHU_APP = { appId: 'cli_pol', appSecret: 'pol-secret' };
const VT = 'vt-pol';

export async function person(t: TestApp, sub: string, org: string, roles: string[] = []): Promise<Person> {
  const token = await t.token(sub, org, roles, { name: sub[0].toUpperCase() + sub.slice(1) });
  const me = await t.request('GET', '/api/me', { token });
  expect(me.status).toBe(200);
  return { sub, token, userId: me.body.user_id, orgId: me.body.org_id };
}

export async function feishuChannel(
  t: TestApp,
  admin: Person,
  feishu: FakeFeishu,
  config: Record<string, unknown> = {},
): Promise<string> {
  const res = await t.request('POST', '/api/channels', {
    token: admin.token,
    body: {
      type: 'feishu',
      name: `pol-${randomUUID().slice(0, 6)}`,
      config: {
        app_id: FEISHU_APP.appId,
        app_secret: FEISHU_APP.appSecret,
        chat_id: 'oc_pol',
        verification_token: VT,
        base_url: feishu.url,
        ...config,
      },
    },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

export function settings(
  owner: Person,
  confirmation: Partial<AgentHookSettings['confirmation']> = {},
): AgentHookSettings {
  return {
    id: randomUUID(),
    name: 'buyer',
    ownerUserId: owner.userId,
    requireConfirmationForAll: false,
    confirmation: { timeoutS: 60, approverScope: 'initiator', forbidSelfApproval: false, ...confirmation },
  };
}

export interface GateRun {
  result: Promise<HookResult>;
  id: Promise<string>;
}

/** Runs the real gate the way the hook registry does; `id` resolves once the request row exists. */
export function runGate(
  t: TestApp,
  requester: Person,
  agent: AgentHookSettings,
  args: Record<string, unknown> = { id: 'PO-7', amount: 60000 },
  confirmationWhen = 'args.amount > 50000',
): GateRun {
  const events: Array<{ type: string; data: Record<string, any> }> = [];
  const ctx: HookContext = {
    point: HookPoint.PreToolUse,
    toolName: 'oa__purchase_pay',
    toolArgs: args,
    agentId: agent.id,
    userId: requester.userId,
    orgId: requester.orgId,
    runId: randomUUID(),
    callId: `call_${randomUUID().slice(0, 8)}`,
    surface: 'chat',
    metadata: { requiresConfirmation: true, agent, confirmationWhen },
    emit: (type, data) => Promise.resolve(void events.push({ type, data })),
    signal: new AbortController().signal,
  };
  const result = Promise.resolve(t.app.get(ConfirmationGateHook).execute(ctx));
  result.catch(() => undefined);
  const id = until(
    'confirmation_pending',
    () => events.find((e) => e.type === 'confirmation_pending')?.data.confirmation_id as string | undefined,
  );
  return { result, id };
}

/** A genuine Feishu card click through the public callback: what the clicker sees (toast). */
export async function click(
  t: TestApp,
  channelId: string,
  confirmationId: string,
  openId: string,
  decision: 'approve' | 'reject' = 'approve',
) {
  const r = feishuRequest(
    feishuCardAction({ verificationToken: VT, value: { confirmation_id: confirmationId, decision }, openId }),
    {},
  );
  const res = await t.request('POST', `/api/channels/${channelId}/callback`, { body: r.body, headers: r.headers });
  expect(res.status).toBe(200);
  // success: decided (card replaced); info: recorded but more approvals are needed; error: refused.
  return {
    ok: ['success', 'info'].includes(res.body?.toast?.type),
    message: String(res.body?.toast?.content ?? res.text),
  };
}

export const decide = (t: TestApp, who: Person, id: string, decision: 'approve' | 'reject' = 'approve') =>
  t.request('POST', `/api/confirmations/${id}/decision`, { token: who.token, body: { decision } });

export async function statusOf(t: TestApp, who: Person, id: string): Promise<Record<string, any>> {
  const res = await t.request('GET', `/api/confirmations/${id}`, { token: who.token });
  expect(res.status).toBe(200);
  return res.body;
}

/** Links a chat account the admin way (audited). */
export async function adminLink(t: TestApp, admin: Person, sub: string, feishuOpenId: string | null): Promise<void> {
  const res = await t.request('PUT', `/api/users/${sub}/identities`, {
    token: admin.token,
    body: { feishu_open_id: feishuOpenId },
  });
  expect(res.status).toBe(200);
}
