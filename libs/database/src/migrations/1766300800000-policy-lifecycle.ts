import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Policy lifecycle (#34): the record of live PreToolUse decisions (what replays read and shadows compare against),
 * shadow deployments of a policy beside the live one and what each shadow would have decided, and the test cases a
 * policy carries.
 */
export class PolicyLifecycle1766300800000 implements MigrationInterface {
  name = 'PolicyLifecycle1766300800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE policy_decisions (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      org_id uuid NOT NULL CONSTRAINT policy_decisions_org_id_fkey REFERENCES orgs(id) ON DELETE CASCADE,
      agent_id text, user_id text, run_id text, call_id text,
      tool text NOT NULL,
      args jsonb NOT NULL,
      decision text NOT NULL CONSTRAINT policy_decisions_decision_check CHECK (decision IN ('allow', 'ask', 'block')),
      approvals integer NOT NULL,
      tier integer,
      blocked_by text,
      reason text,
      args_digest text NOT NULL,
      rewritten boolean NOT NULL,
      policy_versions jsonb,
      created_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX policy_decisions_org_time_idx ON policy_decisions (org_id, created_at, id)`);
    await q.query(
      `CREATE INDEX policy_decisions_agent_time_idx ON policy_decisions (org_id, agent_id, created_at, id)`,
    );
    await q.query(`CREATE TABLE policy_shadows (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL CONSTRAINT policy_shadows_org_id_fkey REFERENCES orgs(id) ON DELETE CASCADE,
      subject_type text NOT NULL CONSTRAINT policy_shadows_subject_type_check CHECK (subject_type IN ('agent', 'org_hooks')),
      subject_id uuid NOT NULL,
      config jsonb NOT NULL,
      live_version integer,
      comment text,
      deployed_by uuid,
      deployed_at timestamptz NOT NULL DEFAULT now(),
      ended_at timestamptz,
      ended_how text CONSTRAINT policy_shadows_ended_how_check CHECK (ended_how IN ('promoted', 'discarded'))
    )`);
    await q.query(
      `CREATE UNIQUE INDEX policy_shadows_active_uq ON policy_shadows (subject_type, subject_id) WHERE ended_at IS NULL`,
    );
    await q.query(`CREATE INDEX policy_shadows_org_active_idx ON policy_shadows (org_id) WHERE ended_at IS NULL`);
    await q.query(`CREATE TABLE policy_shadow_results (
      shadow_id uuid NOT NULL CONSTRAINT policy_shadow_results_shadow_id_fkey REFERENCES policy_shadows(id) ON DELETE CASCADE,
      decision_id bigint NOT NULL CONSTRAINT policy_shadow_results_decision_id_fkey REFERENCES policy_decisions(id) ON DELETE CASCADE,
      decision text NOT NULL,
      approvals integer NOT NULL,
      tier integer,
      blocked_by text,
      reason text,
      args_digest text NOT NULL,
      skipped text[] NOT NULL DEFAULT '{}',
      differences text[] NOT NULL DEFAULT '{}',
      PRIMARY KEY (shadow_id, decision_id)
    )`);
    await q.query(`CREATE INDEX policy_shadow_results_decision_idx ON policy_shadow_results (decision_id)`);
    await q.query(`CREATE TABLE policy_tests (
      subject_type text NOT NULL CONSTRAINT policy_tests_subject_type_check CHECK (subject_type IN ('agent', 'org_hooks')),
      subject_id uuid NOT NULL,
      org_id uuid NOT NULL CONSTRAINT policy_tests_org_id_fkey REFERENCES orgs(id) ON DELETE CASCADE,
      cases jsonb NOT NULL,
      updated_by uuid,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (subject_type, subject_id)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE policy_tests`);
    await q.query(`DROP TABLE policy_shadow_results`);
    await q.query(`DROP TABLE policy_shadows`);
    await q.query(`DROP TABLE policy_decisions`);
  }
}
