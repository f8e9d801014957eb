import { startOaApp, type OaApp } from './oa-app.js';
import type pg from 'pg';
import { AuditWriter } from '../../libs/hooks/src/builtin/index.js';
import type { HttpFake } from '../fakes/http-fake.js';
import type { TestApp } from '../support/test-app.js';
import { chat } from './runtime-helpers.js';

/**
 * One connector call, one audit row (issue 15): the row written before the request leaves is completed by the call's
 * stored result, and the audit_log hook's batch, landing after that, completes the same row instead of adding one.
 * Barriers: the chat stream ends after the run is stored; `AuditWriter.flush()` resolves once the batch is written.
 */
describe('in-flight audit rows (PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let admin: string;
  let db: pg.Client;

  let app: OaApp;
  beforeAll(async () => {
    app = await startOaApp((req) => ({ paid: req.path.split('/')[2] }));
    ({ t, oa, db, admin } = app);
  });
  afterAll(async () => app?.close());

  it.each([
    ['digest only', undefined],
    ['store_args', { class_hooks: [{ name: 'audit_log', config: { store_args: true } }] }],
  ])(
    'a completed call has exactly one audit row, completed with its status and duration, after the batch lands (%s)',
    async (_, hooks) => {
      const script = [
        { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-A1', amount: 100 } }] },
        { content: 'paid' },
      ];
      const agent = await t.request('POST', '/api/agents', {
        token: admin,
        body: {
          name: `payer-${hooks ? 'args' : 'digest'}`,
          model_config_json: { model: { provider: 'scripted', script }, tools: ['oa__*'], ...(hooks ? { hooks } : {}) },
        },
      });
      expect(agent.status).toBe(201);
      const before = oa.requests.length;
      const res = await chat(t, admin, { agent_id: agent.body.id, message: 'pay PO-A1' });
      expect(res.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
      expect(oa.requests.length - before).toBe(1);
      const runId = res.events[0].data.run_id as string;

      const rows = async () =>
        (
          await db.query(
            `SELECT outcome, status, success, (duration_ms IS NOT NULL) AS timed, args FROM connector_call_logs WHERE run_id = $1`,
            [runId],
          )
        ).rows;
      // Completed by the call's stored result, before any batch.
      expect(await rows()).toEqual([{ outcome: 'completed', status: 200, success: true, timed: true, args: null }]);
      await t.app.get(AuditWriter).flush();
      const args = hooks ? { id: 'PO-A1', amount: 100 } : null;
      expect(await rows()).toEqual([{ outcome: 'completed', status: 200, success: true, timed: true, args }]);
    },
  );
});
