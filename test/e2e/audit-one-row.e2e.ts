import { AuditWriter } from '@warden/hooks';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat, OA_ACTIONS } from './runtime-helpers.js';

/**
 * One connector request, one audit row: the row written in flight (before the request left) is completed by the call's
 * result and then by the audit_log hook's batch — never a second row for the same call (the audit CSV would count it twice).
 */
describe('audit rows of executed calls', () => {
  let t: TestApp;
  let oa: HttpFake;

  beforeAll(async () => {
    oa = await startHttpFake((req) => ({ ok: true, path: req.path }));
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
    await oa?.close();
  });

  it('a chat that calls two connector actions leaves exactly two completed rows, with status and duration', async () => {
    const admin = await t.token('ada', 'acme', ['admin']);
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: admin,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'reader',
        model_config_json: {
          model: {
            provider: 'scripted',
            script: [
              {
                tool_calls: [
                  { name: 'oa__get_purchase', args: { id: 'PO-1' } },
                  { name: 'oa__get_purchase', args: { id: 'PO-2' } },
                ],
              },
              { content: 'done' },
            ],
          },
          tools: ['oa__get_purchase'],
        },
      },
    });
    const res = await chat(t, admin, { agent_id: agent.body.id, message: 'read both' });
    expect(res.events.at(-1)!.data.status).toBe('completed');
    await t.app.get(AuditWriter).flush();
    const runId = res.events[0].data.run_id;
    const rows = await t.request('GET', `/api/audit/connector-calls?run_id=${runId}`, { token: admin });
    expect(oa.requests).toHaveLength(2);
    expect(
      rows.body.map((r: any) => [r.url.replace(oa.url, ''), r.status, r.success, typeof r.duration_ms]).sort(),
    ).toEqual([
      ['/purchases/PO-1', 200, true, 'number'],
      ['/purchases/PO-2', 200, true, 'number'],
    ]);
  });
});
