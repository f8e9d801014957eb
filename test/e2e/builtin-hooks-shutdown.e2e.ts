import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { AuditLogHook, AuditWriter } from '../../libs/hooks/src/builtin/index.js';
import { HookPoint, type HookContext } from '../../libs/hooks/src/hook.types.js';
import { createTestDatabase } from '../support/test-database.js';
import { startTestApp } from '../support/test-app.js';

/** Acceptance 5: shutting down during a burst of connector calls loses no audit row. */
describe('audit_log at shutdown', () => {
  it('app.close() in the middle of a burst: rows written == calls made', async () => {
    const db = await createTestDatabase();
    try {
      const t = await startTestApp({}, { databaseUrl: db.url });
      const token = await t.token('alice', 'acme', ['admin']);
      const me = (await t.request('GET', '/api/me', { token })).body;
      const hook = t.app.get(AuditLogHook);
      const writer = t.app.get(AuditWriter);
      const runId = randomUUID();
      const call = (i: number): HookContext => ({
        point: HookPoint.PostToolUse,
        toolName: 'oa__purchase_pay',
        toolArgs: { id: i },
        toolResult: 'ok',
        agentId: randomUUID(),
        userId: me.user_id,
        orgId: me.org_id,
        runId,
        callId: `c${i}`,
        surface: 'chat',
        emit: () => Promise.resolve(),
        signal: new AbortController().signal,
        metadata: {
          connector: { id: 'oa-id', name: 'oa', action: 'purchase_pay', method: 'POST', url: 'http://oa.internal/pay' },
          execution: { status: 200, durationMs: 4, success: true },
        },
      });

      // 6,000 calls arriving 60 per event-loop turn; the shutdown starts after the first 1,500, while the
      // rest keep coming (the writer is then mid-batch with a partly filled buffer).
      let made = 0;
      let closing: Promise<void> | undefined;
      let madeBeforeClose = 0;
      while (made < 6000) {
        for (let i = 0; i < 60; i++) await hook.execute(call(made++), {});
        if (made >= 1500 && !closing) {
          madeBeforeClose = made;
          closing = t.close();
        }
        await new Promise((r) => setImmediate(r));
      }
      await closing;
      expect(madeBeforeClose).toBeLessThan(made);
      expect(writer.pending).toBe(0);

      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query(
          'SELECT count(*)::int AS n, count(DISTINCT call_id)::int AS calls FROM connector_call_logs WHERE run_id = $1',
          [runId],
        );
        expect(rows[0]).toEqual({ n: made, calls: made });
      } finally {
        await client.end();
      }
    } finally {
      await db.drop();
    }
    // 6 000 hash-chained rows: minutes, not seconds, on a loaded 2-core machine (CI saw 66 s); a bound, not a figure.
  }, 180_000);
});
