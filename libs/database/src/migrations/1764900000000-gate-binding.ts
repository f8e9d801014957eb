import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Approvals bound to the action (`confirmation_requests.args_digest`: SHA-256 of tool + canonical args; null on
 * rows from before, which are then compared by their stored tool + args) and eval simulation: flags on tool calls and
 * audit rows, the eval's `reads` mode.
 */
export class GateBinding1764900000000 implements MigrationInterface {
  name = 'GateBinding1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE confirmation_requests ADD COLUMN args_digest text NULL`);
    await q.query(`ALTER TABLE tool_calls ADD COLUMN simulated boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE connector_call_logs ADD COLUMN simulated boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE evals ADD COLUMN reads text NOT NULL DEFAULT 'live'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE evals DROP COLUMN reads`);
    await q.query(`ALTER TABLE connector_call_logs DROP COLUMN simulated`);
    await q.query(`ALTER TABLE tool_calls DROP COLUMN simulated`);
    await q.query(`ALTER TABLE confirmation_requests DROP COLUMN args_digest`);
  }
}
