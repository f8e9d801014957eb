import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run waiting for approvals can park: it gives up its lease and no process holds it. `parked_on` names the
 * confirmations whose decision (or deadline) makes it claimable again; null for every run that is not parked.
 */
export class ParkedRuns1766100000000 implements MigrationInterface {
  name = 'ParkedRuns1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_runs ADD COLUMN parked_on uuid[]`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_runs DROP COLUMN parked_on`);
  }
}
