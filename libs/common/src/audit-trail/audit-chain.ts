import { chainHash, GENESIS_HASH, type AuditEventInput, type ChainedAuditEvent } from './audit-event.js';
import { canonicalJson } from './canonical-json.js';

/** Anything that runs SQL: a DataSource, an EntityManager, a QueryRunner. */
export interface Queryable {
  query<T = any>(sql: string, params?: unknown[]): Promise<T>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

// Locks each org's head row (creating it at the genesis hash on first use) and returns its last seq and hash. Orgs
// are locked in one sorted order, so two batches touching the same orgs never deadlock.
const LOCK_HEADS_SQL = `INSERT INTO audit_chain_heads (org_id, seq, hash)
    SELECT o, 0, $2 FROM unnest($1::uuid[]) WITH ORDINALITY AS t(o, i) ORDER BY i
  ON CONFLICT (org_id) DO UPDATE SET updated_at = now()
  RETURNING org_id::text AS org_id, seq::text AS seq, hash`;

const APPEND_SQL = `WITH appended AS (
    INSERT INTO audit_events (org_id, seq, kind, action, entity_type, entity_id, actor, occurred_at, payload,
      prev_hash, hash)
    SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
      $8::timestamptz[], $9::jsonb[], $10::text[], $11::text[]))
  UPDATE audit_chain_heads h SET seq = u.seq, hash = u.hash, updated_at = now()
    FROM unnest($12::uuid[], $13::bigint[], $14::text[]) AS u(org_id, seq, hash) WHERE h.org_id = u.org_id`;

/**
 * Appends events to their orgs' hash chains, in the given order. `tx` must be inside a transaction: the head rows
 * stay locked until it commits, so concurrent writers (other batches, other instances) chain after it, never beside.
 */
export async function appendAuditEvents(tx: Queryable, events: AuditEventInput[]): Promise<ChainedAuditEvent[]> {
  if (events.length === 0) return [];
  const orgs = [...new Set(events.map((e) => e.orgId.toLowerCase()))].sort();
  const heads = await tx.query<Array<{ org_id: string; seq: string; hash: string }>>(LOCK_HEADS_SQL, [
    orgs,
    GENESIS_HASH,
  ]);
  const state = new Map(heads.map((h) => [h.org_id, { seq: Number(h.seq), hash: h.hash }]));
  const payloadTexts: string[] = [];
  const chained = events.map((input) => {
    const head = state.get(input.orgId.toLowerCase());
    // LOCK_HEADS_SQL returns a row for every org it was given.
    if (!head) throw new Error(`audit chain: no head row was locked for org ${input.orgId}`);
    const body = {
      org_id: input.orgId.toLowerCase(),
      seq: head.seq + 1,
      kind: input.kind,
      action: input.action,
      entity_type: input.entityType ?? null,
      entity_id: input.entityId ?? null,
      actor: input.actor ?? null,
      occurred_at: input.occurredAt.toISOString(),
      payload: input.payload,
    };
    // The payload's canonical text is both what the hash covers and what is stored (jsonb reads back the same value).
    const payloadText = canonicalJson(input.payload);
    payloadTexts.push(payloadText);
    const event: ChainedAuditEvent = { ...body, prev_hash: head.hash, hash: chainHash(head.hash, body, payloadText) };
    head.seq = event.seq;
    head.hash = event.hash;
    return event;
  });
  const col = <K extends keyof ChainedAuditEvent>(k: K) => chained.map((e) => e[k]);
  await tx.query(APPEND_SQL, [
    col('org_id'),
    col('seq'),
    col('kind'),
    col('action'),
    col('entity_type'),
    col('entity_id'),
    col('actor'),
    col('occurred_at'),
    payloadTexts,
    col('prev_hash'),
    col('hash'),
    [...state.keys()],
    [...state.values()].map((h) => h.seq),
    [...state.values()].map((h) => h.hash),
  ]);
  return chained;
}
