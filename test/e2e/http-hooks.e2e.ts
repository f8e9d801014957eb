import { createHmac } from 'node:crypto';
import { startFakeOpa, type FakeOpa } from '../fakes/fake-opa.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, OA_ACTIONS } from './runtime-helpers.js';

const SECRET = 'hook-signing-secret-0123456789';

/** The example policy of the README: payments over 50 000 need a purchase order. */
function paymentsPolicy(input: any) {
  if (input.tool_name !== 'oa__purchase_pay') return { allow: true };
  if (input.tool_input.amount > 50_000 && !input.tool_input.po_number) {
    return {
      allow: false,
      reason: `payments over 50000 need a purchase order number (got ${input.tool_input.amount})`,
    };
  }
  return { allow: true };
}

/** Acceptance 3 of #21: YAML `http` hooks, with OPA's Data API as the policy server. */
describe('HTTP policy hooks', () => {
  let t: TestApp;
  let oa: HttpFake;
  let opa: FakeOpa;
  let admin: string;

  const opaHook = (url: string, extra = '') =>
    [
      'hooks:',
      '  - name: payments-policy',
      '    event: PreToolUse',
      '    matcher: "oa__purchase_pay"',
      '    type: http',
      `    url: ${url}`,
      '    format: opa',
      '    timeout_ms: 2000',
      extra,
    ].join('\n');
  const payAgent = async (yaml: string, amount: number, id: string) =>
    t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: `pay-${id}`,
        instructions: 'x',
        model_config_json: {
          model: {
            provider: 'scripted',
            script: [{ tool_calls: [{ name: 'oa__purchase_pay', args: { id, amount } }] }, { content: 'done' }],
          },
          tools: ['oa__*'],
          hooks: { yaml },
        },
      },
    });
  const payVia = async (yaml: string, amount: number, id: string) => {
    const agent = await payAgent(yaml, amount, id);
    expect(agent.status).toBe(201);
    const res = await chat(t, admin, { agent_id: agent.body.id, message: 'pay' });
    expect(res.events.at(-1)!.data.status).toBe('completed');
    return res.events.find((e) => e.event === 'observation')!.data;
  };

  beforeAll(async () => {
    [oa, opa] = await Promise.all([
      startHttpFake(() => ({ paid: true })),
      startFakeOpa({ 'warden/payments/decision': paymentsPolicy }),
    ]);
    t = await startTestApp({ HOOK_HTTP_ALLOW: `127.0.0.1:${opa.port}`, HOOK_HTTP_SECRET: SECRET });
    admin = await t.token('alice', 'acme', ['admin']);
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: admin,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([oa?.close(), opa?.close()]);
  });

  it("OPA denies a payment with the policy's reason; nothing is sent", async () => {
    const observation = await payVia(opaHook(`${opa.url}/v1/data/warden/payments/decision`), 60_000, 'PO-H1');
    expect(observation).toMatchObject({ blocked: true, blocked_by: 'payments-policy' });
    expect(observation.content).toBe(
      'Tool call blocked by payments-policy: payments over 50000 need a purchase order number (got 60000)',
    );
    expect(oa.requests.filter((r) => r.path.includes('PO-H1'))).toHaveLength(0);

    const asked = opa.requests.at(-1)!;
    expect(asked.body.input).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'oa__purchase_pay',
      tool_input: { id: 'PO-H1', amount: 60_000 },
      surface: 'chat',
    });
    const expected = createHmac('sha256', SECRET)
      .update(`${String(asked.headers['x-warden-timestamp'])}.${asked.rawBody}`)
      .digest('hex');
    expect(asked.headers['x-warden-signature']).toBe(`sha256=${expected}`);
  });

  it('OPA allows a small payment: it is sent', async () => {
    const observation = await payVia(opaHook(`${opa.url}/v1/data/warden/payments/decision`), 100, 'PO-H2');
    expect(observation.blocked).toBe(false);
    expect(oa.requests.filter((r) => r.path === '/purchases/PO-H2/pay')).toHaveLength(1);
  });

  it('an undefined policy document fails closed with a clear reason', async () => {
    const observation = await payVia(opaHook(`${opa.url}/v1/data/warden/nothing/here`), 100, 'PO-H3');
    expect(observation).toMatchObject({ blocked: true, blocked_by: 'payments-policy' });
    expect(observation.content).toContain('hook failed: OPA returned no result');
    expect(oa.requests.filter((r) => r.path.includes('PO-H3'))).toHaveLength(0);
  });

  it('the policy server down: the call is blocked (fail closed) with a clear reason', async () => {
    const down = await startFakeOpa({});
    const allowDown = await startTestApp({ HOOK_HTTP_ALLOW: `127.0.0.1:${down.port}` }, { databaseUrl: t.databaseUrl });
    try {
      await down.close();
      const agent = await allowDown.request('POST', '/api/agents', {
        token: admin,
        body: {
          name: 'pay-down',
          instructions: 'x',
          model_config_json: {
            model: {
              provider: 'scripted',
              script: [
                { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-H4', amount: 10 } }] },
                { content: 'done' },
              ],
            },
            tools: ['oa__*'],
            hooks: { yaml: opaHook(`${down.url}/v1/data/warden/payments/decision`) },
          },
        },
      });
      expect(agent.status).toBe(201);
      const res = await chat(allowDown, admin, { agent_id: agent.body.id, message: 'pay' });
      const observation = res.events.find((e) => e.event === 'observation')!.data;
      expect(observation).toMatchObject({ blocked: true, blocked_by: 'payments-policy' });
      expect(observation.content).toMatch(
        new RegExp(
          `^Tool call blocked by payments-policy: hook failed: policy server 127\\.0\\.0\\.1:${down.port} could not be reached`,
        ),
      );
      expect(oa.requests.filter((r) => r.path.includes('PO-H4'))).toHaveLength(0);
    } finally {
      await allowDown.close();
    }
  });

  it('a policy server that does not answer in time blocks the call', async () => {
    const slow = await startHttpFake(() => new Promise(() => undefined));
    const app = await startTestApp({ HOOK_HTTP_ALLOW: `127.0.0.1:${slow.port}` }, { databaseUrl: t.databaseUrl });
    try {
      const yaml = [
        'hooks:',
        '  - name: slow-policy',
        '    event: PreToolUse',
        `    url: ${slow.url}/check`,
        '    timeout_ms: 300',
      ].join('\n');
      const agent = await app.request('POST', '/api/agents', {
        token: admin,
        body: {
          name: 'pay-slow',
          instructions: 'x',
          model_config_json: {
            model: {
              provider: 'scripted',
              script: [
                { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-H5', amount: 10 } }] },
                { content: 'done' },
              ],
            },
            tools: ['oa__*'],
            hooks: { yaml },
          },
        },
      });
      const res = await chat(app, admin, { agent_id: agent.body.id, message: 'pay' });
      const observation = res.events.find((e) => e.event === 'observation')!.data;
      expect(observation.content).toBe(
        "Tool call blocked by slow-policy: hook failed: hook 'slow-policy' did not finish within 300 ms",
      );
      expect(oa.requests.filter((r) => r.path.includes('PO-H5'))).toHaveLength(0);
    } finally {
      await app.close();
      await slow.close();
    }
  });

  it('a plain http hook speaks the command-hook JSON protocol (block with decision/reason)', async () => {
    const policy = await startHttpFake((req) =>
      req.body.tool_input.amount > 5 ? { decision: 'block', reason: 'over 5' } : {},
    );
    const app = await startTestApp({ HOOK_HTTP_ALLOW: `127.0.0.1:${policy.port}` }, { databaseUrl: t.databaseUrl });
    try {
      const yaml = [
        'hooks:',
        '  - name: plain-policy',
        '    event: PreToolUse',
        `    url: ${policy.url}/check`,
        '    headers: { X-Api-Key: k1 }',
      ].join('\n');
      const agent = await app.request('POST', '/api/agents', {
        token: admin,
        body: {
          name: 'pay-plain',
          instructions: 'x',
          model_config_json: {
            model: {
              provider: 'scripted',
              script: [
                { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-H6', amount: 10 } }] },
                { content: 'done' },
              ],
            },
            tools: ['oa__*'],
            hooks: { yaml },
          },
        },
      });
      const res = await chat(app, admin, { agent_id: agent.body.id, message: 'pay' });
      expect(res.events.find((e) => e.event === 'observation')!.data.content).toBe(
        'Tool call blocked by plain-policy: over 5',
      );
      expect(policy.requests[0].headers['x-api-key']).toBe('k1');
      // No HOOK_HTTP_SECRET on this instance: no signature.
      expect(policy.requests[0].headers['x-warden-signature']).toBeUndefined();
    } finally {
      await app.close();
      await policy.close();
    }
  });

  it('saving an http hook whose host is not allow-listed, or a bad url, is a 400 naming the problem', async () => {
    const off = await payAgent(opaHook('http://policy.internal:8181/v1/data/x'), 1, 'PO-H7');
    expect(off.status).toBe(400);
    expect(JSON.stringify(off.body)).toContain('url host \\"policy.internal:8181\\" is not in HOOK_HTTP_ALLOW');
    const bad = await payAgent(opaHook('file:///etc/passwd'), 1, 'PO-H8');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('.url: must be an http(s) URL, not file:');
    const both = await payAgent(opaHook(`${opa.url}/v1/data/x`, '    run: ./allow.sh'), 1, 'PO-H9');
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.body)).toContain('has \\"run\\" and \\"url\\"; choose one');
  });
});
