import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The OpenTelemetry trace id of a run (GET /api/runs/:id `trace_id`). */
export class Observability1764900001000 implements MigrationInterface {
  name = 'Observability1764900001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_runs ADD COLUMN trace_id text NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_runs DROP COLUMN trace_id`);
  }
}
