import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Workflow runs can be cancelled (POST /api/workflow-runs/:id/cancel), like agent runs. */
export class WorkflowCancel1765000800000 implements MigrationInterface {
  name = 'WorkflowCancel1765000800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_runs DROP CONSTRAINT workflow_runs_status_check`);
    await q.query(
      `ALTER TABLE workflow_runs ADD CONSTRAINT workflow_runs_status_check CHECK (status IN ('running', 'waiting', 'completed', 'failed', 'cancelled'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_runs DROP CONSTRAINT workflow_runs_status_check`);
    await q.query(
      `ALTER TABLE workflow_runs ADD CONSTRAINT workflow_runs_status_check CHECK (status IN ('running', 'waiting', 'completed', 'failed'))`,
    );
  }
}
