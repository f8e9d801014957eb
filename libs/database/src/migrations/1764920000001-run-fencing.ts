import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fencing tokens for leased runs: every claim of a run increments `lease_epoch`, and every write of a driver is
 * conditional on the epoch it claimed, so a driver that lost its lease (paused past it, taken over) writes nothing.
 */
export class RunFencing1764920000001 implements MigrationInterface {
  name = 'RunFencing1764920000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_runs ADD COLUMN lease_epoch integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE workflow_runs ADD COLUMN lease_epoch integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workflow_runs DROP COLUMN lease_epoch`);
    await q.query(`ALTER TABLE agent_runs DROP COLUMN lease_epoch`);
  }
}
