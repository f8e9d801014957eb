import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BadInputError } from '../errors/domain.exception.js';
import type { AuditEventKind } from './audit-event.js';

export interface AuditEventFilters {
  orgId: string;
  kind?: AuditEventKind;
  action?: string;
  entityType?: string;
  entityId?: string;
  actor?: string;
  /** Events about this agent: those whose payload names it (calls, approval requests) and its own config changes. */
  agentId?: string;
  from?: Date;
  to?: Date;
}

export interface AuditEventRow {
  id: string;
  seq: number;
  kind: string;
  action: string;
  entity_type: string | null;
  entity_id: string | null;
  actor: string | null;
  occurred_at: Date;
  recorded_at: Date;
  payload: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

export const AUDIT_EVENT_COLUMNS = [
  'seq',
  'occurred_at',
  'kind',
  'action',
  'entity_type',
  'entity_id',
  'actor',
  'payload',
  'prev_hash',
  'hash',
];

const SELECT = `SELECT seq::text AS id, seq::int8 AS seq, kind, action, entity_type, entity_id, actor, occurred_at,
  recorded_at, payload, prev_hash, hash FROM audit_events`;

/** Reads an org's audit trail: filtered pages, newest first, by chain position (seq). */
@Injectable()
export class AuditEventsQuery {
  constructor(private readonly dataSource: DataSource) {}

  async page(
    f: AuditEventFilters,
    limit: number,
    cursor?: string,
  ): Promise<{ items: AuditEventRow[]; next_cursor: string | null }> {
    const { where, params } = filters(f);
    if (cursor) {
      params.push(decodeSeqCursor(cursor));
      where.push(`seq < $${params.length}`);
    }
    const rows: Array<AuditEventRow & { seq: string }> = await this.dataSource.query(
      `${SELECT} WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ${limit + 1}`,
      params,
    );
    const items = rows.slice(0, limit).map((r) => ({ ...r, seq: Number(r.seq) }));
    const last = items.at(-1);
    return {
      items,
      next_cursor: rows.length > limit && last ? Buffer.from(String(last.seq)).toString('base64url') : null,
    };
  }

  /** Every matching event in chain order, a page at a time (exports). */
  async *pages(f: AuditEventFilters, pageSize = 1_000): AsyncGenerator<AuditEventRow[]> {
    let after = 0;
    for (;;) {
      const { where, params } = filters(f);
      params.push(after);
      where.push(`seq > $${params.length}`);
      const rows: Array<AuditEventRow & { seq: string }> = await this.dataSource.query(
        `${SELECT} WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ${pageSize}`,
        params,
      );
      if (rows.length === 0) return;
      const page = rows.map((r) => ({ ...r, seq: Number(r.seq) }));
      after = page[page.length - 1].seq;
      yield page;
      if (rows.length < pageSize) return;
    }
  }
}

function filters(f: AuditEventFilters): { where: string[]; params: unknown[] } {
  const params: unknown[] = [f.orgId];
  const where = ['org_id = $1'];
  const add = (sql: (n: number) => string, value: unknown) => {
    if (value === undefined) return;
    params.push(value);
    where.push(sql(params.length));
  };
  add((n) => `kind = $${n}`, f.kind);
  add((n) => `action = $${n}`, f.action);
  add((n) => `entity_type = $${n}`, f.entityType);
  add((n) => `entity_id = $${n}`, f.entityId);
  add((n) => `actor = $${n}`, f.actor);
  add((n) => `(payload->>'agent_id' = $${n} OR (entity_type = 'agent' AND entity_id = $${n}))`, f.agentId);
  add((n) => `occurred_at >= $${n}`, f.from);
  add((n) => `occurred_at < $${n}`, f.to);
  return { where, params };
}

function decodeSeqCursor(cursor: string): string {
  const seq = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{1,18}$/.test(seq))
    throw new BadInputError('cursor is not one this API returned (pass next_cursor from the previous page unchanged)');
  return seq;
}
