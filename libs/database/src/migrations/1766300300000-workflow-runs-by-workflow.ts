import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A workflow's past runs (`GET /api/workflows/:id/runs`, the designer's run list), newest first, by index. */
export class WorkflowRunsByWorkflow1766300300000 implements MigrationInterface {
  name = 'WorkflowRunsByWorkflow1766300300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX workflow_runs_workflow_idx ON workflow_runs (workflow_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX workflow_runs_workflow_idx`);
  }
}
