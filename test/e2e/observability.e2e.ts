import { startFakeOtlp, type FakeOtlp, type ReceivedSpan } from '../fakes/fake-otlp.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { OA_ACTIONS, openChat } from './runtime-helpers.js';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** Parses Prometheus text into `name{labels}` -> value. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

/** Operators see hooks and approvals in their own tools: OpenTelemetry traces over OTLP and Prometheus metrics. */
describe('observability: traces and metrics (PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let otlp: FakeOtlp;
  let admin: string;
  let agent: string;

  const scrape = async () => {
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    return parseMetrics(await res.text());
  };
  const value = (m: Map<string, number>, key: string) => m.get(key) ?? 0;

  /** One chat that pays 60 000: the gate waits, the admin approves in the inbox, the connector is called. */
  async function gatedChat(po: string) {
    const run = openChat(t, admin, { agent_id: agent, message: `pay ${po}` });
    const pending = (await run.next('confirmation_pending')).data;
    expect(
      (
        await t.request('POST', `/api/confirmations/${pending.confirmation_id}/decision`, {
          token: admin,
          body: { decision: 'approve' },
        })
      ).status,
    ).toBe(200);
    const events = await run.finished;
    return events[0].data.run_id as string;
  }

  beforeAll(async () => {
    [oa, otlp] = await Promise.all([startHttpFake(() => ({ paid: true })), startFakeOtlp()]);
    t = await startTestApp({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '50', METRICS_TOKEN });
    admin = await t.token('alice', 'acme', ['admin']);
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: admin,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'payer',
        model_config_json: {
          model: {
            provider: 'scripted',
            script: [
              { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-1', amount: 60_000 } }] },
              { content: 'paid' },
            ],
          },
          tools: ['oa__*'],
        },
      },
    });
    agent = res.body.id;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([oa?.close(), otlp?.close()]);
  });

  it('GET /metrics needs the METRICS_TOKEN when set', async () => {
    expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status,
    ).toBe(401);
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('after a chat with an approval, the hook, approval, run, tool and HTTP series moved', async () => {
    const before = await scrape();
    await gatedChat('PO-M');
    const after = await scrape();
    const moved = (key: string) => value(after, key) - value(before, key);
    expect(moved('warden_hook_outcomes_total{hook="confirmation_gate",point="PreToolUse",outcome="allow"}')).toBe(1);
    expect(moved('warden_hook_outcomes_total{hook="audit_log",point="PostToolUse",outcome="allow"}')).toBe(1);
    expect(moved('warden_hook_duration_seconds_count{hook="confirmation_gate",point="PreToolUse"}')).toBe(1);
    expect(moved('warden_approval_decision_seconds_count{channel="inbox",status="approved"}')).toBe(1);
    expect(moved('warden_tool_calls_total{tool="oa__purchase_pay",outcome="done"}')).toBe(1);
    expect(moved('warden_runs_finished_total{status="completed",surface="chat"}')).toBe(1);
    expect(
      moved(
        'warden_http_request_duration_seconds_count{method="POST",route="/api/confirmations/:id/decision",status="200"}',
      ),
    ).toBe(1);
    for (const series of [
      'warden_approvals_pending',
      'warden_runs_active{status="waiting"}',
      'warden_audit_queue_depth',
      'warden_event_log_followers',
    ]) {
      expect(after.has(series)).toBe(true);
    }
    expect([...after.keys()].some((k) => k.startsWith('warden_approval_wake_seconds_count'))).toBe(true);
  });

  it('a gated chat run exports the span tree run -> model call, tool call -> hooks + approval wait; traceparent reaches the connector', async () => {
    oa.requests.length = 0;
    const runId = await gatedChat('PO-T');
    const run = await t.request('GET', `/api/runs/${runId}`, { token: admin });
    const traceId = run.body.trace_id as string;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const inTrace = () => otlp.spans.filter((s) => s.traceId === traceId);
    // The run parked on the approval: its first drive (root) ends `waiting`, the drive the decision started continues
    // the same trace under it and ends the run.
    const drives = () => inTrace().filter((s) => s.name === 'run');
    await until('both drives exported', () => drives().length === 2, 15_000);
    const root = drives().find((s) => !inTrace().some((p) => p.spanId === s.parentSpanId))!;
    const resumed = drives().find((s) => s !== root)!;
    expect(root.attributes).toMatchObject({
      'warden.run_id': runId,
      'warden.surface': 'chat',
      'warden.run.status': 'waiting',
    });
    expect(resumed).toMatchObject({ parentSpanId: root.spanId, attributes: { 'warden.run.status': 'completed' } });
    const children = (parent: ReceivedSpan) => inTrace().filter((s) => s.parentSpanId === parent.spanId);
    const models = [...children(root), ...children(resumed)].filter((s) => s.name === 'model call');
    expect(models).toHaveLength(2);
    expect(models[0].attributes).toMatchObject({ 'warden.model.provider': 'scripted' });
    const tool = children(resumed).find((s) => s.name === 'tool oa__purchase_pay')!;
    expect(tool.attributes).toMatchObject({ 'warden.tool': 'oa__purchase_pay', 'warden.tool.outcome': 'done' });
    const underTool = children(tool);
    expect(underTool.find((s) => s.name === 'hook confirmation_gate')!.attributes).toMatchObject({
      'warden.hook.point': 'PreToolUse',
      'warden.hook.outcome': 'allow',
    });
    expect(underTool.find((s) => s.name === 'hook audit_log')!.attributes).toMatchObject({
      'warden.hook.point': 'PostToolUse',
    });
    const wait = underTool.find((s) => s.name === 'approval wait')!;
    expect(wait.attributes).toMatchObject({
      'warden.approval.status': 'approved',
      'warden.approval.decided_by': expect.any(String),
      'warden.approval.parked': true,
    });
    expect(typeof wait.attributes['warden.confirmation_id']).toBe('string');
    // The connector request carries the trace: its parent is the tool call's span.
    const pay = oa.requests.find((r) => r.path === '/purchases/PO-1/pay')!;
    expect(pay.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-${tool.spanId}-0[01]$`));
  });
});
