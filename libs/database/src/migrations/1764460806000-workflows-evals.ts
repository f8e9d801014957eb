import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkflowsEvals1764460806000 implements MigrationInterface {
  name = 'WorkflowsEvals1764460806000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE workflows (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      name text NOT NULL,
      definition jsonb NOT NULL,
      created_by uuid NULL REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT workflows_org_name_uq UNIQUE (org_id, name)
    )`);
    await q.query(`CREATE TABLE workflow_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id),
      status text NOT NULL CHECK (status IN ('running', 'waiting', 'completed', 'failed')),
      inputs jsonb NOT NULL DEFAULT '{}',
      nodes jsonb NOT NULL DEFAULT '{}',
      error text NULL,
      event_seq integer NOT NULL DEFAULT 0,
      locked_by text NULL,
      lease_until timestamptz NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX workflow_runs_org_idx ON workflow_runs (org_id, created_at DESC)`);
    await q.query(
      `CREATE INDEX workflow_runs_resumable_idx ON workflow_runs (lease_until) WHERE status IN ('running', 'waiting')`,
    );
    await q.query(`CREATE TABLE workflow_run_events (
      run_id uuid NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
      seq integer NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (run_id, seq)
    )`);
    await q.query(`CREATE TABLE evals (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL,
      user_id uuid NOT NULL REFERENCES users(id),
      status text NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
      hooks text NOT NULL DEFAULT 'bypassed',
      cases jsonb NOT NULL,
      results jsonb NOT NULL DEFAULT '[]',
      error text NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE evals`);
    await q.query(`DROP TABLE workflow_run_events`);
    await q.query(`DROP TABLE workflow_runs`);
    await q.query(`DROP TABLE workflows`);
  }
}
