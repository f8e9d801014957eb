import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Policy tests (#34): a version saved although the subject's policy tests failed (`force: true`) names the cases it
 * overrode, so the history shows which versions were forced and past what.
 */
export class PolicyVersionTestsForced1766301000000 implements MigrationInterface {
  name = 'PolicyVersionTestsForced1766301000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE policy_versions ADD COLUMN tests_forced text[]`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE policy_versions DROP COLUMN tests_forced`);
  }
}
