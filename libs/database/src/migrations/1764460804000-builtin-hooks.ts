import type { MigrationInterface, QueryRunner } from 'typeorm';

/** connector_call_logs (written by the audit_log hook) and the shared counter table of connector_rate_limit. */
export class BuiltinHooks1764460804000 implements MigrationInterface {
  name = 'BuiltinHooks1764460804000';

  async up(q: QueryRunner): Promise<void> {
    // An audit trail outlives what it names, and a batch insert must not fail on a deleted org or agent: no foreign
    // keys on purpose. Ids of users, agents, runs and connectors are text so that no row is lost to a type mismatch.
    await q.query(`CREATE TABLE connector_call_logs (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      org_id uuid NOT NULL,
      agent_id text NULL,
      user_id text NULL,
      run_id text NULL,
      call_id text NULL,
      surface text NOT NULL,
      tool text NOT NULL,
      connector_id text NULL,
      connector_name text NOT NULL,
      action text NOT NULL,
      method text NOT NULL,
      url text NOT NULL,
      args_digest text NOT NULL,
      args jsonb NULL,
      status integer NULL,
      duration_ms integer NULL,
      success boolean NOT NULL,
      error text NULL,
      blocked_by text NULL,
      created_at timestamptz NOT NULL
    )`);
    await q.query(
      `CREATE INDEX connector_call_logs_org_created_idx ON connector_call_logs (org_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX connector_call_logs_org_agent_idx ON connector_call_logs (org_id, agent_id, created_at DESC)`,
    );
    await q.query(`CREATE INDEX connector_call_logs_org_run_idx ON connector_call_logs (org_id, run_id)`);
    // The layout rate-limiter-flexible's RateLimiterPostgres expects; created here so the app never runs DDL.
    await q.query(`CREATE TABLE connector_rate_limits (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE connector_rate_limits`);
    await q.query(`DROP TABLE connector_call_logs`);
  }
}
