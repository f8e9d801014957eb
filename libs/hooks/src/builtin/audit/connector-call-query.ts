import { Injectable } from '@nestjs/common';
import { decodeCursor, encodeCursor } from '@warden/common';
import { DataSource } from 'typeorm';

/** What a reader may narrow the org's connector calls to. */
export interface ConnectorCallFilters {
  orgId: string;
  agentId?: string;
  runId?: string;
  userId?: string;
  tool?: string;
  surface?: string;
  /** `blocked` (by a hook), `failed` (ran, not ok), `succeeded`, `in_flight`, `interrupted`. */
  outcome?: 'blocked' | 'failed' | 'succeeded' | 'in_flight' | 'interrupted';
  from?: Date;
  to?: Date;
}

/** The columns of a row as the API and the exports show it, in export order. */
export const CONNECTOR_CALL_COLUMNS = [
  'id',
  'created_at',
  'org_id',
  'agent_id',
  'user_id',
  'run_id',
  'call_id',
  'surface',
  'tool',
  'connector_id',
  'connector',
  'action',
  'method',
  'url',
  'args_digest',
  'args',
  'status',
  'duration_ms',
  'success',
  'error',
  'blocked_by',
  'simulated',
  'outcome',
  'approved_by',
];

const SELECT = `SELECT id::text AS id, created_at, org_id::text AS org_id, agent_id, user_id, run_id, call_id, surface,
  tool, connector_id, connector_name AS connector, action, method, url, args_digest, args, status, duration_ms, success,
  error, blocked_by, simulated, outcome, approved_by, created_at::text AS sort_ts FROM connector_call_logs`;

const OUTCOME_SQL: Record<NonNullable<ConnectorCallFilters['outcome']>, string> = {
  blocked: 'blocked_by IS NOT NULL',
  failed: `blocked_by IS NULL AND outcome = 'completed' AND NOT success`,
  succeeded: `blocked_by IS NULL AND success`,
  in_flight: `outcome = 'in_flight'`,
  interrupted: `outcome = 'interrupted'`,
};

export type ConnectorCallRow = Record<string, unknown> & { id: string };

/** Reads an org's connector call log: filtered pages (newest first) and exports (oldest first), by keyset. */
@Injectable()
export class ConnectorCallQuery {
  constructor(private readonly dataSource: DataSource) {}

  /** One page, newest first; `next_cursor` is null on the last page. */
  async page(
    f: ConnectorCallFilters,
    limit: number,
    cursor?: string,
  ): Promise<{ items: ConnectorCallRow[]; next_cursor: string | null }> {
    const { where, params } = this.where(f);
    if (cursor) {
      const c = decodeCursor(cursor);
      params.push(c.ts, c.id);
      where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`);
    }
    const rows: Array<ConnectorCallRow & { sort_ts: string }> = await this.dataSource.query(
      `${SELECT} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`,
      params,
    );
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return {
      items: items.map(strip),
      next_cursor: rows.length > limit && last ? encodeCursor(last.sort_ts, last.id) : null,
    };
  }

  /** Every matching row, oldest first, a page at a time: what an export streams. */
  async *pages(f: ConnectorCallFilters, pageSize = 2_000): AsyncGenerator<ConnectorCallRow[]> {
    let after: { ts: string; id: string } | null = null;
    for (;;) {
      const { where, params } = this.where(f);
      if (after) {
        params.push(after.ts, after.id);
        where.push(`(created_at, id) > ($${params.length - 1}::timestamptz, $${params.length}::bigint)`);
      }
      const rows: Array<ConnectorCallRow & { sort_ts: string }> = await this.dataSource.query(
        `${SELECT} WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT ${pageSize}`,
        params,
      );
      if (rows.length === 0) return;
      const last = rows[rows.length - 1];
      after = { ts: last.sort_ts, id: last.id };
      yield rows.map(strip);
      if (rows.length < pageSize) return;
    }
  }

  private where(f: ConnectorCallFilters): { where: string[]; params: unknown[] } {
    const params: unknown[] = [f.orgId];
    const where = ['org_id = $1'];
    const eq = (column: string, value: unknown) => {
      if (value === undefined) return;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    };
    eq('agent_id', f.agentId);
    eq('run_id', f.runId);
    eq('user_id', f.userId);
    eq('tool', f.tool);
    eq('surface', f.surface);
    if (f.from) {
      params.push(f.from);
      where.push(`created_at >= $${params.length}`);
    }
    if (f.to) {
      params.push(f.to);
      where.push(`created_at < $${params.length}`);
    }
    if (f.outcome) where.push(OUTCOME_SQL[f.outcome]);
    return { where, params };
  }
}

function strip({ sort_ts: _ts, ...row }: ConnectorCallRow & { sort_ts?: string }): ConnectorCallRow {
  return row;
}
