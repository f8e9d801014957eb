import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Decision } from './policy-decision.js';

/** A live decision to record: the call as the chain received it, and what the policy in force decided. */
export interface RecordedCall {
  orgId: string;
  agentId: string | null;
  userId: string | null;
  runId: string | null;
  callId: string | null;
  tool: string;
  args: Record<string, unknown>;
  decision: Decision;
  createdAt: Date;
}

/** A recorded call as read back (for a replay). */
export interface StoredCall extends RecordedCall {
  id: string;
}

interface Row {
  id: string;
  org_id: string;
  agent_id: string | null;
  user_id: string | null;
  run_id: string | null;
  call_id: string | null;
  tool: string;
  args: Record<string, unknown>;
  decision: Decision['decision'];
  approvals: number;
  tier: number | null;
  blocked_by: string | null;
  reason: string | null;
  args_digest: string;
  rewritten: boolean;
  created_at: Date;
}

// One statement per batch, whatever its size: unnest() turns 14 arrays into rows.
const INSERT_SQL = `INSERT INTO policy_decisions (org_id, agent_id, user_id, run_id, call_id, tool, args, decision,
    approvals, tier, blocked_by, reason, args_digest, rewritten, created_at)
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[],
    $9::int[], $10::int[], $11::text[], $12::text[], $13::text[], $14::bool[], $15::timestamptz[])
  RETURNING id::text`;

/** The `policy_decisions` table: every live PreToolUse decision, written in batches off the call's path. */
@Injectable()
export class DecisionStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts `calls` in one statement; their ids, in order. */
  async insert(calls: RecordedCall[]): Promise<string[]> {
    if (calls.length === 0) return [];
    const col = <T>(f: (c: RecordedCall) => T) => calls.map(f);
    const rows = await this.dataSource.query<Array<{ id: string }>>(INSERT_SQL, [
      col((c) => c.orgId),
      col((c) => c.agentId),
      col((c) => c.userId),
      col((c) => c.runId),
      col((c) => c.callId),
      col((c) => c.tool),
      col((c) => JSON.stringify(c.args)),
      col((c) => c.decision.decision),
      col((c) => c.decision.approvals),
      col((c) => c.decision.tier),
      col((c) => c.decision.blocked_by),
      col((c) => c.decision.reason),
      col((c) => c.decision.args_digest),
      col((c) => c.decision.rewritten),
      col((c) => c.createdAt.toISOString()),
    ]);
    return rows.map((r) => r.id);
  }

  /** How many calls of the org (of `agentId` when given) were decided in [from, to). */
  async count(orgId: string, from: Date, to: Date, agentId?: string): Promise<number> {
    const [row] = await this.dataSource.query<[{ n: string }]>(
      `SELECT count(*) AS n FROM policy_decisions
        WHERE org_id = $1 AND created_at >= $2 AND created_at < $3 AND ($4::text IS NULL OR agent_id = $4)`,
      [orgId, from, to, agentId ?? null],
    );
    return Number(row.n);
  }

  /**
   * The calls decided in [from, to), oldest first, `limit` at a time after `after` (keyset pages in the order of the
   * (org, [agent,] created_at, id) indexes, so each page is one index range read: no re-scan of the window per page).
   */
  async page(
    orgId: string,
    window: { from: Date; to: Date; agentId?: string },
    after: PageMark | null,
    limit: number,
  ): Promise<{ calls: StoredCall[]; next: PageMark | null }> {
    const { from, to, agentId } = window;
    const agent = agentId === undefined ? '' : 'AND agent_id = $6';
    const rows = await this.dataSource.query<Array<Row & { at_key: string }>>(
      `SELECT id::text, org_id, agent_id, user_id, run_id, call_id, tool, args, decision, approvals, tier,
              blocked_by, reason, args_digest, rewritten, created_at, created_at::text AS at_key
         FROM policy_decisions
        WHERE org_id = $1 ${agent} AND created_at >= $2 AND created_at < $3
          AND (created_at, id) > ($4::timestamptz, $5::bigint)
        ORDER BY created_at, id LIMIT ${limit}`,
      [orgId, from, to, after?.at ?? from.toISOString(), after?.id ?? '0', ...(agentId === undefined ? [] : [agentId])],
    );
    const last = rows.at(-1);
    return { calls: rows.map(toCall), next: last ? { at: last.at_key, id: last.id } : null };
  }
}

/** Where a page ends: the next page starts after this (time as PostgreSQL wrote it, to the microsecond; id). */
export interface PageMark {
  at: string;
  id: string;
}

function toCall(r: Row): StoredCall {
  return {
    id: r.id,
    orgId: r.org_id,
    agentId: r.agent_id,
    userId: r.user_id,
    runId: r.run_id,
    callId: r.call_id,
    tool: r.tool,
    args: r.args,
    createdAt: r.created_at,
    decision: {
      decision: r.decision,
      approvals: r.approvals,
      tier: r.tier,
      blocked_by: r.blocked_by,
      reason: r.reason,
      args_digest: r.args_digest,
      rewritten: r.rewritten,
    },
  };
}
