import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { chainHash, GENESIS_HASH, type ChainedAuditEvent } from './audit-event.js';

/** The first event whose link does not hold, and why. */
export interface BrokenLink {
  id: string;
  seq: number;
  kind: string;
  action: string;
  occurred_at: string;
  reason: string;
  stored_hash: string;
  expected_hash: string | null;
}

export interface VerifyResult {
  valid: boolean;
  /** Events checked. */
  rows: number;
  first_seq: number | null;
  last_seq: number | null;
  /** The hash of the last event checked: anchor it elsewhere to prove later that nothing before it changed. */
  last_hash: string | null;
  first_broken: BrokenLink | null;
}

interface StoredEvent extends ChainedAuditEvent {
  id: string;
}

/**
 * Checks that the rows an event of one kind covers (e.g. connector_call_logs) still say what the event says; returns
 * the ids of events whose rows differ, with the reason. Registered by the module that owns those rows.
 */
export type AuditSourceCheck = (events: Array<Pick<StoredEvent, 'id' | 'payload'>>) => Promise<Map<string, string>>;

const PAGE = 2_000;

/**
 * Recomputes an org's hash chain, page by page (memory stays flat at any size), and reports the first event that was
 * edited, removed (a gap in seq) or re-linked. Without `to`, the last event must also be the org's chain head, so
 * events deleted from the end are found too.
 */
@Injectable()
export class AuditVerifier {
  private readonly sourceChecks = new Map<string, AuditSourceCheck>();

  constructor(private readonly dataSource: DataSource) {}

  addSourceCheck(kind: string, check: AuditSourceCheck): void {
    this.sourceChecks.set(kind, check);
  }

  async verify(orgId: string, range: { from?: Date; to?: Date } = {}): Promise<VerifyResult> {
    const result: VerifyResult = {
      valid: true,
      rows: 0,
      first_seq: null,
      last_seq: null,
      last_hash: null,
      first_broken: null,
    };
    const firstSeq = await this.firstSeqInRange(orgId, range);
    if (firstSeq === null) return range.from ? result : this.checkHead(orgId, range, result, null);
    // From the start of the trail, the first event must be seq 1 on the genesis hash; from a later point, it must link
    // to the stored event before it.
    let expected: { seq: number; prevHash: string } =
      !range.from || firstSeq === 1
        ? { seq: 1, prevHash: GENESIS_HASH }
        : { seq: firstSeq, prevHash: await this.predecessorHash(orgId, firstSeq) };
    let after = firstSeq - 1;
    for (;;) {
      const page = await this.page(orgId, after, range.to);
      const sourceProblems = await this.checkSources(page);
      for (const e of page) {
        const broken = this.check(e, expected, sourceProblems.get(e.id));
        result.rows++;
        result.first_seq ??= e.seq;
        result.last_seq = e.seq;
        result.last_hash = e.hash;
        if (broken) return { ...result, valid: false, first_broken: broken };
        expected = { seq: e.seq + 1, prevHash: e.hash };
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1].seq;
    }
    return this.checkHead(orgId, range, result, result.last_seq);
  }

  private async checkSources(page: StoredEvent[]): Promise<Map<string, string>> {
    const problems = new Map<string, string>();
    for (const [kind, check] of this.sourceChecks) {
      const events = page.filter((e) => e.kind === kind);
      if (events.length) for (const [id, reason] of await check(events)) problems.set(id, reason);
    }
    return problems;
  }

  private check(
    e: StoredEvent,
    expected: { seq: number; prevHash: string },
    sourceProblem?: string,
  ): BrokenLink | null {
    const link = (reason: string, expectedHash: string | null): BrokenLink => ({
      id: e.id,
      seq: e.seq,
      kind: e.kind,
      action: e.action,
      occurred_at: e.occurred_at,
      reason,
      stored_hash: e.hash,
      expected_hash: expectedHash,
    });
    if (e.seq !== expected.seq) return link(`events ${expected.seq}..${e.seq - 1} are missing before this one`, null);
    if (e.prev_hash !== expected.prevHash) {
      return link('prev_hash does not match the hash of the event before it', null);
    }
    const recomputed = chainHash(e.prev_hash, e);
    if (recomputed !== e.hash)
      return link('hash does not match the event as stored (the event was edited)', recomputed);
    return sourceProblem ? link(sourceProblem, null) : null;
  }

  private async firstSeqInRange(orgId: string, range: { from?: Date; to?: Date }): Promise<number | null> {
    const [row]: Array<{ seq: string | null }> = await this.dataSource.query(
      `SELECT min(seq)::text AS seq FROM audit_events
         WHERE org_id = $1 AND ($2::timestamptz IS NULL OR recorded_at >= $2)
         AND ($3::timestamptz IS NULL OR recorded_at < $3)`,
      [orgId, range.from ?? null, range.to ?? null],
    );
    return row.seq === null ? null : Number(row.seq);
  }

  /**
   * The stored hash of the event before `seq`; a missing one can match no prev_hash, so the link is reported broken.
   */
  private async predecessorHash(orgId: string, seq: number): Promise<string> {
    const [row] = await this.dataSource.query<Array<{ hash: string } | undefined>>(
      `SELECT hash FROM audit_events WHERE org_id = $1 AND seq = $2`,
      [orgId, seq - 1],
    );
    return row?.hash ?? `(event ${seq - 1} is missing)`;
  }

  private async page(orgId: string, afterSeq: number, to?: Date): Promise<StoredEvent[]> {
    const rows: Array<Omit<StoredEvent, 'seq'> & { seq: string; occurred_at: Date }> = await this.dataSource.query(
      `SELECT seq::text AS id, org_id::text AS org_id, seq::text AS seq, kind, action, entity_type, entity_id, actor,
              occurred_at, payload, prev_hash, hash
         FROM audit_events WHERE org_id = $1 AND seq > $2 AND ($3::timestamptz IS NULL OR recorded_at < $3)
        ORDER BY audit_events.seq LIMIT ${PAGE}`,
      [orgId, afterSeq, to ?? null],
    );
    return rows.map((r) => ({ ...r, seq: Number(r.seq), occurred_at: new Date(r.occurred_at).toISOString() }));
  }

  /** Without an upper bound the chain must end at the org's head: events deleted from the end show here. */
  private async checkHead(
    orgId: string,
    range: { to?: Date },
    result: VerifyResult,
    lastSeq: number | null,
  ): Promise<VerifyResult> {
    if (range.to || !result.valid) return result;
    const [head] = await this.dataSource.query<Array<{ seq: string; hash: string } | undefined>>(
      `SELECT seq::text AS seq, hash FROM audit_chain_heads WHERE org_id = $1`,
      [orgId],
    );
    if (!head || Number(head.seq) === 0 || (Number(head.seq) === lastSeq && head.hash === result.last_hash))
      return result;
    return {
      ...result,
      valid: false,
      first_broken: {
        id: '',
        seq: lastSeq === null ? 1 : lastSeq + 1,
        kind: '',
        action: '',
        occurred_at: '',
        reason: `the chain head is at event ${head.seq} but the trail ends at ${lastSeq ?? 0}: events were removed`,
        stored_hash: head.hash,
        expected_hash: result.last_hash,
      },
    };
  }
}
