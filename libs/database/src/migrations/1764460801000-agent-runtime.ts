import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Connectors and their actions, agents, conversations, runs with their events and durable tool calls. */
export class AgentRuntime1764460801000 implements MigrationInterface {
  name = 'AgentRuntime1764460801000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE connectors (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      name text NOT NULL,
      base_url text NOT NULL,
      headers jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT connectors_org_name_uq UNIQUE (org_id, name)
    )`);
    await q.query(`CREATE TABLE connector_actions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      connector_id uuid NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
      position int NOT NULL,
      name text NOT NULL,
      method text NOT NULL,
      path text NOT NULL,
      description text NOT NULL DEFAULT '',
      parameters jsonb NOT NULL DEFAULT '{"type":"object","properties":{}}',
      requires_confirmation boolean NOT NULL DEFAULT false,
      requires_confirmation_when text NULL,
      write boolean NOT NULL,
      CONSTRAINT connector_actions_name_uq UNIQUE (connector_id, name)
    )`);
    await q.query(`CREATE TABLE agents (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      name text NOT NULL,
      instructions text NOT NULL DEFAULT '',
      model_config_json jsonb NOT NULL,
      owner_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX agents_org_idx ON agents (org_id)`);
    await q.query(`CREATE TABLE conversations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL,
      user_id uuid NOT NULL,
      messages jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    // agent_id carries no foreign key on purpose: a run stays on the record after its agent is deleted.
    await q.query(`CREATE TABLE agent_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL,
      user_id uuid NOT NULL,
      conversation_id uuid NULL,
      parent_run_id uuid NULL REFERENCES agent_runs(id) ON DELETE SET NULL,
      parent_call_id text NULL,
      surface text NOT NULL CHECK (surface IN ('chat', 'api', 'dag', 'delegate', 'workflow', 'eval')),
      mode text NOT NULL CHECK (mode IN ('react', 'dag')),
      status text NOT NULL CHECK (status IN ('running', 'waiting', 'completed', 'failed', 'refused', 'cancelled')),
      hooks text NOT NULL CHECK (hooks IN ('active', 'bypassed')),
      message text NOT NULL,
      answer text NULL,
      error text NULL,
      state jsonb NOT NULL DEFAULT '{}',
      event_seq int NOT NULL DEFAULT 0,
      locked_by text NULL,
      lease_until timestamptz NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz NULL
    )`);
    await q.query(`CREATE INDEX agent_runs_org_idx ON agent_runs (org_id, created_at DESC)`);
    await q.query(`CREATE INDEX agent_runs_parent_idx ON agent_runs (parent_run_id)`);
    await q.query(
      `CREATE INDEX agent_runs_active_idx ON agent_runs (lease_until) WHERE status IN ('running', 'waiting')`,
    );
    await q.query(`CREATE TABLE run_events (
      run_id uuid NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
      seq int NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (run_id, seq)
    )`);
    await q.query(`CREATE TABLE tool_calls (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      run_id uuid NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
      call_id text NOT NULL,
      position int NOT NULL,
      tool text NOT NULL,
      args jsonb NOT NULL,
      executed_args jsonb NULL,
      status text NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed', 'blocked')),
      result text NULL,
      full_result text NULL,
      blocked_by text NULL,
      error text NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz NULL,
      finished_at timestamptz NULL,
      CONSTRAINT tool_calls_run_call_uq UNIQUE (run_id, call_id)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE tool_calls`);
    await q.query(`DROP TABLE run_events`);
    await q.query(`DROP TABLE agent_runs`);
    await q.query(`DROP TABLE conversations`);
    await q.query(`DROP TABLE agents`);
    await q.query(`DROP TABLE connector_actions`);
    await q.query(`DROP TABLE connectors`);
  }
}
