import { Injectable } from '@nestjs/common';
import type { Queryable } from '@warden/common';
import { DataSource } from 'typeorm';

/** "This call and similar ones in this run" (table `standing_approvals`). */
export interface StandingApproval {
  id: string;
  orgId: string;
  runId: string;
  tool: string;
  /** CEL over `args` that a later call must satisfy, e.g. `args.amount <= 70000`. */
  condition: string;
  maxCalls: number;
  /** Calls that ran under it, the approved one included. */
  uses: number;
  expiresAt: Date;
  confirmationId: string;
  grantedByUserId: string | null;
  grantedByName: string;
  /** The tier and policy version it was given under: it never covers a call of another tier or version. */
  tier: number | null;
  policyVersion: string | null;
  createdAt: Date;
}

/** A `standing_approvals` row as pg returns it. */
interface StandingApprovalRow {
  id: string;
  org_id: string;
  run_id: string;
  tool: string;
  condition: string;
  max_calls: number;
  uses: number;
  expires_at: Date;
  confirmation_id: string;
  granted_by_user_id: string | null;
  granted_by_name: string;
  tier: number | null;
  policy_version: string | null;
  created_at: Date;
}

const toApproval = (r: StandingApprovalRow): StandingApproval => ({
  id: r.id,
  orgId: r.org_id,
  runId: r.run_id,
  tool: r.tool,
  condition: r.condition,
  maxCalls: r.max_calls,
  uses: r.uses,
  expiresAt: new Date(r.expires_at),
  confirmationId: r.confirmation_id,
  grantedByUserId: r.granted_by_user_id,
  grantedByName: r.granted_by_name,
  tier: r.tier,
  policyVersion: r.policy_version,
  createdAt: new Date(r.created_at),
});

export function standingApprovalView(s: StandingApproval): Record<string, unknown> {
  return {
    id: s.id,
    run_id: s.runId,
    tool: s.tool,
    when: s.condition,
    max_calls: s.maxCalls,
    uses: s.uses,
    expires_at: s.expiresAt.toISOString(),
    confirmation_id: s.confirmationId,
    granted_by: s.grantedByName,
    created_at: s.createdAt.toISOString(),
  };
}

/** The SQL of standing approvals: a use is one conditional statement (counter + use row), so K is never exceeded. */
@Injectable()
export class StandingApprovalStore {
  constructor(private readonly dataSource: DataSource) {}

  async create(
    input: {
      orgId: string;
      runId: string;
      tool: string;
      condition: string;
      maxCalls: number;
      minutes: number;
      confirmationId: string;
      callId: string;
      argsDigest: string;
      grantedByUserId: string | null;
      grantedByName: string;
      tier: number | null;
      policyVersion: string | null;
    },
    runner: Queryable = this.dataSource,
  ): Promise<StandingApproval | null> {
    // The approved call is its first use: a resumed run finds it by its call id like any other use.
    const [row] = await runner.query<[StandingApprovalRow?]>(
      `WITH made AS (
         INSERT INTO standing_approvals
           (org_id, run_id, tool, condition, max_calls, expires_at, confirmation_id,
            granted_by_user_id, granted_by_name, tier, policy_version)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(mins => $6), $7, $8, $9, $12, $13)
         ON CONFLICT (confirmation_id) DO NOTHING RETURNING *),
       first_use AS (
         INSERT INTO standing_approval_uses (standing_approval_id, run_id, call_id, args_digest)
         SELECT id, run_id, $10, $11 FROM made ON CONFLICT DO NOTHING)
       SELECT * FROM made`,
      [
        input.orgId,
        input.runId,
        input.tool,
        input.condition,
        input.maxCalls,
        input.minutes,
        input.confirmationId,
        input.grantedByUserId,
        input.grantedByName,
        input.callId,
        input.argsDigest,
        input.tier,
        input.policyVersion,
      ],
    );
    // null: already granted for this confirmation (a repeated decision), and that grant is the one.
    return row ? toApproval(row) : null;
  }

  async byConfirmation(confirmationId: string): Promise<StandingApproval | null> {
    const [row] = await this.dataSource.query<[StandingApprovalRow?]>(
      `SELECT * FROM standing_approvals WHERE confirmation_id = $1`,
      [confirmationId],
    );
    return row ? toApproval(row) : null;
  }

  /** The standing approvals of a run for a tool that may still cover a call (the CEL is evaluated by the caller). */
  async activeFor(runId: string, tool: string): Promise<StandingApproval[]> {
    const rows = await this.dataSource.query<StandingApprovalRow[]>(
      `SELECT * FROM standing_approvals
        WHERE run_id = $1 AND tool = $2 AND uses < max_calls AND expires_at > now() ORDER BY created_at`,
      [runId, tool],
    );
    return rows.map(toApproval);
  }

  /** The standing approval this call already ran under (a resumed call), with the digest it was used for. */
  async usedBy(runId: string, callId: string): Promise<{ approval: StandingApproval; argsDigest: string } | null> {
    const [row] = await this.dataSource.query<[(StandingApprovalRow & { use_digest: string })?]>(
      `SELECT s.*, u.args_digest AS use_digest
         FROM standing_approval_uses u JOIN standing_approvals s ON s.id = u.standing_approval_id
        WHERE u.run_id = $1 AND u.call_id = $2`,
      [runId, callId],
    );
    return row ? { approval: toApproval(row), argsDigest: row.use_digest } : null;
  }

  /**
   * Takes one use for this call if the approval still has one; null when it ran out or expired meanwhile. In
   * `runner`'s transaction when given (as `create`): its audit event commits with it.
   */
  async use(
    id: string,
    runId: string,
    callId: string,
    argsDigest: string,
    runner: Queryable = this.dataSource,
  ): Promise<StandingApproval | null> {
    const [row] = await runner.query<[StandingApprovalRow?]>(
      `WITH bumped AS (
         UPDATE standing_approvals SET uses = uses + 1
          WHERE id = $1 AND uses < max_calls AND expires_at > now()
            AND NOT EXISTS (SELECT 1 FROM standing_approval_uses WHERE run_id = $2 AND call_id = $3)
          RETURNING *),
       used AS (
         INSERT INTO standing_approval_uses (standing_approval_id, run_id, call_id, args_digest)
         SELECT id, $2, $3, $4 FROM bumped)
       SELECT * FROM bumped`,
      [id, runId, callId, argsDigest],
    );
    return row ? toApproval(row) : null;
  }
}
