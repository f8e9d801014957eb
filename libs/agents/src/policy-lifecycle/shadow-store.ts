import { Injectable } from '@nestjs/common';
import { ConflictError, type Queryable } from '@warden/common';
import { ConfigCache } from '@warden/database';
import type { PolicySubject, PolicySubjectType } from '@warden/hooks';
import { DataSource } from 'typeorm';
import type { Decision, Difference } from './policy-decision.js';

/** An active (or ended) shadow deployment. */
export interface Shadow {
  id: string;
  orgId: string;
  subjectType: PolicySubjectType;
  subjectId: string;
  config: Record<string, unknown>;
  liveVersion: number | null;
  comment: string | null;
  deployedBy: string | null;
  deployedAt: Date;
}

/** What a shadow would have decided for recorded decision `decisionId`. */
export interface ShadowResult {
  shadowId: string;
  decisionId: string;
  decision: Decision;
  skipped: string[];
  differences: Difference[];
}

const COLUMNS = `id, org_id AS "orgId", subject_type AS "subjectType", subject_id AS "subjectId", config,
  live_version AS "liveVersion", comment, deployed_by AS "deployedBy", deployed_at AS "deployedAt"`;

/** The `policy_shadows` and `policy_shadow_results` tables. */
@Injectable()
export class ShadowStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: ConfigCache,
  ) {}

  /** Deploys `config` as the subject's shadow; 409 when it already has one (promote or discard it first). */
  async deploy(
    s: PolicySubject,
    config: Record<string, unknown>,
    liveVersion: number | null,
    by: string,
    comment: string | null,
    tx: Queryable,
  ) {
    const [row] = await tx.query<[Shadow?]>(
      `INSERT INTO policy_shadows (org_id, subject_type, subject_id, config, live_version, deployed_by, comment)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (subject_type, subject_id) WHERE ended_at IS NULL DO NOTHING RETURNING ${COLUMNS}`,
      [s.orgId, s.type, s.id, JSON.stringify(config), liveVersion, by, comment],
    );
    if (!row) throw new ConflictError(`the ${label(s)} already has a shadow policy: promote or discard it first`);
    return row;
  }

  /** The subject's active shadow, or null. */
  async active(s: PolicySubject, tx: Queryable = this.dataSource): Promise<Shadow | null> {
    const [row] = await tx.query<[Shadow?]>(
      `SELECT ${COLUMNS} FROM policy_shadows
        WHERE org_id = $1 AND subject_type = $2 AND subject_id = $3 AND ended_at IS NULL`,
      [s.orgId, s.type, s.id],
    );
    return row ?? null;
  }

  /**
   * The active shadows of these orgs, from the per-instance config cache: every recorded decision asks, and shadows
   * change rarely (the `policy_shadows` trigger announces each change, migration 1766301400000).
   */
  async activeIn(orgIds: string[]): Promise<Shadow[]> {
    const perOrg = await Promise.all(
      orgIds.map((orgId) =>
        this.config.get(orgId, 'policy_shadows', () =>
          this.dataSource.query<Shadow[]>(
            `SELECT ${COLUMNS} FROM policy_shadows WHERE org_id = $1 AND ended_at IS NULL`,
            [orgId],
          ),
        ),
      ),
    );
    return perOrg.flat();
  }

  /** Ends shadow `id` (promoted or discarded); false when it had already ended. */
  async end(id: string, how: 'promoted' | 'discarded', tx: Queryable): Promise<boolean> {
    const rows = await tx.query<Array<{ id: string }>>(
      `UPDATE policy_shadows SET ended_at = now(), ended_how = $2 WHERE id = $1 AND ended_at IS NULL RETURNING id`,
      [id, how],
    );
    return rows.length > 0;
  }

  async insertResults(results: ShadowResult[]): Promise<void> {
    if (results.length === 0) return;
    const col = <T>(f: (r: ShadowResult) => T) => results.map(f);
    await this.dataSource.query(
      `INSERT INTO policy_shadow_results (shadow_id, decision_id, decision, approvals, tier, blocked_by, reason,
                                          args_digest, skipped, differences)
       SELECT d.shadow_id, d.decision_id, d.decision, d.approvals, d.tier, d.blocked_by, d.reason, d.args_digest,
              ARRAY(SELECT jsonb_array_elements_text(d.skipped)), ARRAY(SELECT jsonb_array_elements_text(d.differences))
         FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[],
                     $9::jsonb[], $10::jsonb[])
           AS d(shadow_id, decision_id, decision, approvals, tier, blocked_by, reason, args_digest, skipped,
                differences)
       ON CONFLICT DO NOTHING`,
      [
        col((r) => r.shadowId),
        col((r) => r.decisionId),
        col((r) => r.decision.decision),
        col((r) => r.decision.approvals),
        col((r) => r.decision.tier),
        col((r) => r.decision.blocked_by),
        col((r) => r.decision.reason),
        col((r) => r.decision.args_digest),
        col((r) => JSON.stringify(r.skipped)),
        col((r) => JSON.stringify(r.differences)),
      ],
    );
  }

  /** How many calls the shadow saw, and how many of each difference. */
  async counts(
    shadowId: string,
  ): Promise<{ calls: number; differing: number; by: Record<string, number>; incomplete: number }> {
    const [row] = await this.dataSource.query<[{ calls: string; differing: string; incomplete: string }]>(
      `SELECT count(*) AS calls, count(*) FILTER (WHERE cardinality(differences) > 0) AS differing,
              count(*) FILTER (WHERE cardinality(skipped) > 0) AS incomplete
         FROM policy_shadow_results WHERE shadow_id = $1`,
      [shadowId],
    );
    const kinds = await this.dataSource.query<Array<{ kind: string; n: string }>>(
      `SELECT k AS kind, count(*) AS n FROM policy_shadow_results, unnest(differences) k
        WHERE shadow_id = $1 GROUP BY k ORDER BY k`,
      [shadowId],
    );
    const by = Object.fromEntries(kinds.map((k) => [k.kind, Number(k.n)]));
    return { calls: Number(row.calls), differing: Number(row.differing), by, incomplete: Number(row.incomplete) };
  }

  /** The calls the shadow would have decided differently, oldest first (at most `limit`). */
  differing(shadowId: string, limit: number) {
    return this.dataSource.query<DifferingRow[]>(
      `SELECT d.id::text AS decision_id, d.run_id, d.call_id, d.agent_id, d.user_id, d.tool, d.args, d.created_at,
              d.decision AS live_decision, d.approvals AS live_approvals, d.blocked_by AS live_blocked_by,
              d.args_digest AS live_args_digest,
              r.decision AS shadow_decision, r.approvals AS shadow_approvals, r.blocked_by AS shadow_blocked_by,
              r.reason AS shadow_reason, r.args_digest AS shadow_args_digest, r.differences, r.skipped
         FROM policy_shadow_results r JOIN policy_decisions d ON d.id = r.decision_id
        WHERE r.shadow_id = $1 AND cardinality(r.differences) > 0 ORDER BY d.id LIMIT $2`,
      [shadowId, limit],
    );
  }
}

export interface DifferingRow {
  decision_id: string;
  run_id: string | null;
  call_id: string | null;
  agent_id: string | null;
  user_id: string | null;
  tool: string;
  args: Record<string, unknown>;
  created_at: Date;
  live_decision: string;
  live_approvals: number;
  live_blocked_by: string | null;
  live_args_digest: string;
  shadow_decision: string;
  shadow_approvals: number;
  shadow_blocked_by: string | null;
  shadow_reason: string | null;
  shadow_args_digest: string;
  differences: string[];
  skipped: string[];
}

export const label = (s: PolicySubject) => (s.type === 'agent' ? `agent ${s.id}` : 'org hooks');
