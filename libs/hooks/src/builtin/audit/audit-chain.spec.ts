import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { AuditAnchor, AuditVerifier, type AppConfig } from '@warden/common';
import { createDataSource } from '@warden/database';
import type { DataSource } from 'typeorm';
import { createTestDatabase } from '../../../../../test/support/test-database.js';
import { AuditWriter, type AuditRow } from './audit-writer.js';
import { connectorCallLogCheck } from './connector-call-event.js';

const PER_INSTANCE = 5_000;

/**
 * Acceptance 3 of #19, as a medium test on the real PostgreSQL: two instances (two data sources, two AuditWriters,
 * one database) write 10 000 connector calls of one org at the same time; the org's hash chain stays linear and
 * verifies, and an edit made with SQL — to the chain or to the log people read — is found at that row.
 */
describe('audit hash chain: two instances, one database', () => {
  let db: { url: string; drop: () => Promise<void> };
  let instances: DataSource[];
  let verifier: AuditVerifier;
  const org = randomUUID();
  const otherOrg = randomUUID();
  const runId = randomUUID();

  const row = (instance: number, i: number, orgId = org): AuditRow => ({
    orgId,
    agentId: randomUUID(),
    userId: randomUUID(),
    runId,
    callId: `i${instance}_c${i}`,
    surface: 'chat',
    tool: 'oa__purchase_pay',
    connectorId: 'oa',
    connectorName: 'oa',
    action: 'purchase_pay',
    method: 'POST',
    url: `http://oa.internal/purchases/${i}/pay`,
    argsDigest: 'd'.repeat(64),
    args: null,
    status: i % 7 === 0 ? null : 200,
    durationMs: i % 7 === 0 ? null : 12,
    success: i % 7 !== 0,
    error: i % 7 === 0 ? 'blocked' : null,
    blockedBy: i % 7 === 0 ? 'read_only_guard' : null,
    simulated: false,
    createdAt: new Date(),
  });
  const verify = (range?: { from?: Date; to?: Date }) => verifier.verify(org, range);
  const q = (sql: string, params: unknown[] = []) => instances[0].query(sql, params);

  beforeAll(async () => {
    db = await createTestDatabase();
    instances = [
      createDataSource({ url: db.url, embedded: false, close: () => Promise.resolve() }, 5),
      createDataSource({ url: db.url, embedded: false, close: () => Promise.resolve() }, 5),
    ];
    await Promise.all(instances.map((d) => d.initialize()));
    verifier = new AuditVerifier(instances[0]);
    verifier.addSourceCheck('connector_call', connectorCallLogCheck(instances[0]));

    // Small batches and a short interval: many transactions of both instances contend for the org's chain head.
    const writers = instances.map((d) => new AuditWriter(d, { batchSize: 97, flushIntervalMs: 5 }));
    await Promise.all(
      writers.map(async (w, n) => {
        for (let i = 0; i < PER_INSTANCE; i++) {
          await w.record(row(n, i));
          if (i % 50 === 0) await w.record(row(n, i, otherOrg));
          if (i % 100 === 99) await new Promise((r) => setImmediate(r));
        }
        await w.drain();
        expect(w.stats.rowsDropped).toBe(0);
      }),
    );
  }, 120_000);
  afterAll(async () => {
    await Promise.all((instances ?? []).map((d) => d.destroy()));
    await db?.drop();
  });

  it('10 000 rows written concurrently by two instances form one linear chain that verifies', async () => {
    const [{ n, events, seqs, max }] = await q(
      `SELECT (SELECT count(*)::int FROM connector_call_logs WHERE org_id = $1) AS n, count(*)::int AS events,
              count(DISTINCT seq)::int AS seqs, max(seq)::int AS max FROM audit_events WHERE org_id = $1`,
      [org],
    );
    expect({ n, events, seqs, max }).toEqual({
      n: 2 * PER_INSTANCE,
      events: 2 * PER_INSTANCE,
      seqs: 2 * PER_INSTANCE,
      max: 2 * PER_INSTANCE,
    });
    // Both instances' rows are interleaved in the one chain (they really wrote at the same time).
    const [{ switches }] = await q(
      `SELECT count(*)::int AS switches FROM (SELECT substr(payload->>'call_id', 1, 2) AS w,
              lag(substr(payload->>'call_id', 1, 2)) OVER (ORDER BY seq) AS prev FROM audit_events WHERE org_id = $1) x WHERE w <> prev`,
      [org],
    );
    expect(switches).toBeGreaterThan(1);
    expect(await verify()).toMatchObject({
      valid: true,
      rows: 2 * PER_INSTANCE,
      first_seq: 1,
      last_seq: 2 * PER_INSTANCE,
      first_broken: null,
    });
    expect(await verifier.verify(otherOrg)).toMatchObject({
      valid: true,
      rows: 2 * (PER_INSTANCE / 50),
      first_broken: null,
    });
  });

  it('the anchor logs each grown chain head: the hash verification ends on', async () => {
    const heads = await new AuditAnchor(instances[1], { auditAnchorIntervalS: 0 } as AppConfig).anchor();
    const { last_hash } = await verify();
    expect(heads.find((h) => h.org_id === org)).toEqual({
      org_id: org,
      seq: String(2 * PER_INSTANCE),
      hash: last_hash,
    });
  });

  it('an event edited with SQL fails verification at that event; restored, the chain verifies again', async () => {
    const [target] = await q(`SELECT seq::text AS id, payload FROM audit_events WHERE org_id = $1 AND seq = 4321`, [
      org,
    ]);
    await q(
      `UPDATE audit_events SET payload = jsonb_set(payload, '{tool}', '"oa__purchase_refund"') WHERE org_id = $1 AND seq = 4321`,
      [org],
    );
    const result = await verify();
    expect(result).toMatchObject({
      valid: false,
      first_broken: { seq: 4321, id: target.id, reason: expect.stringContaining('edited') },
    });
    expect(result.rows).toBe(4321);
    await q(`UPDATE audit_events SET payload = $2 WHERE org_id = $1 AND seq = 4321`, [
      org,
      JSON.stringify(target.payload),
    ]);
    expect((await verify()).valid).toBe(true);
  });

  it('a connector_call_logs row changed with SQL fails verification at the event that audited it', async () => {
    const [ev] = await q(
      `SELECT seq::int AS seq, payload->>'log_id' AS log_id FROM audit_events WHERE org_id = $1 AND seq = 777`,
      [org],
    );
    const [before] = await q(`SELECT success, status FROM connector_call_logs WHERE id = $1`, [ev.log_id]);
    await q(`UPDATE connector_call_logs SET success = NOT success, status = 201 WHERE id = $1`, [ev.log_id]);
    expect(await verify()).toMatchObject({
      valid: false,
      first_broken: { seq: 777, reason: `connector_call_logs row ${ev.log_id} was changed after it was audited` },
    });
    await q(`UPDATE connector_call_logs SET success = $2, status = $3 WHERE id = $1`, [
      ev.log_id,
      before.success,
      before.status,
    ]);
    expect((await verify()).valid).toBe(true);
  });

  it('a deleted event shows as a gap; a deleted last event as a head the trail no longer reaches', async () => {
    const take = async (seq: number) =>
      (await q(`DELETE FROM audit_events WHERE org_id = $1 AND seq = $2 RETURNING *`, [org, seq]))[0][0];
    const put = (r: Record<string, unknown>) =>
      q(
        `INSERT INTO audit_events (org_id, seq, kind, action, entity_type, entity_id, actor, occurred_at, payload, prev_hash, hash, recorded_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          r.org_id,
          r.seq,
          r.kind,
          r.action,
          r.entity_type,
          r.entity_id,
          r.actor,
          r.occurred_at,
          JSON.stringify(r.payload),
          r.prev_hash,
          r.hash,
          r.recorded_at,
        ],
      );

    const last = await take(2 * PER_INSTANCE);
    expect(await verify()).toMatchObject({
      valid: false,
      first_broken: { seq: 2 * PER_INSTANCE, reason: expect.stringContaining('events were removed') },
    });
    await put(last);

    const middle = await take(5000);
    expect(await verify()).toMatchObject({
      valid: false,
      first_broken: { seq: 5001, reason: 'events 5000..5000 are missing before this one' },
    });
    await put(middle);
    expect((await verify()).valid).toBe(true);
  });

  it('verifies a time range: the range starts on the stored hash of the event before it', async () => {
    const [mid] = await q(`SELECT recorded_at FROM audit_events WHERE org_id = $1 AND seq = 6000`, [org]);
    const [end] = await q(`SELECT recorded_at FROM audit_events WHERE org_id = $1 AND seq = 8000`, [org]);
    const result = await verify({ from: mid.recorded_at, to: end.recorded_at });
    expect(result.valid).toBe(true);
    expect(result.first_seq).toBeGreaterThanOrEqual(5990);
    expect(result.last_seq).toBeLessThan(8000);
    await q(`UPDATE audit_events SET actor = 'mallory' WHERE org_id = $1 AND seq = 7000`, [org]);
    expect(await verify({ from: mid.recorded_at, to: end.recorded_at })).toMatchObject({
      valid: false,
      first_broken: { seq: 7000 },
    });
    expect((await verify({ from: end.recorded_at })).valid).toBe(true);
  });
});
