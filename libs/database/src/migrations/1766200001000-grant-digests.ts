import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Grants are statements about a digest (docs/authorization.md): a vote names the args digest and policy version it
 * allowed; a request keeps the policy it was asked under (to re-tier an edit) and, once approved, the grants that
 * approved it; a standing grant keeps the tier and policy version it was given under. Rows from before carry none of
 * this and authorize nothing.
 */
export class GrantDigests1766200001000 implements MigrationInterface {
  name = 'GrantDigests1766200001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE confirmation_votes ADD COLUMN args_digest text, ADD COLUMN policy_version text`);
    await q.query(
      `ALTER TABLE confirmation_requests ADD COLUMN policy jsonb, ADD COLUMN policy_version text, ADD COLUMN grants jsonb`,
    );
    await q.query(`ALTER TABLE standing_approvals ADD COLUMN tier integer, ADD COLUMN policy_version text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE standing_approvals DROP COLUMN tier, DROP COLUMN policy_version`);
    await q.query(
      `ALTER TABLE confirmation_requests DROP COLUMN policy, DROP COLUMN policy_version, DROP COLUMN grants`,
    );
    await q.query(`ALTER TABLE confirmation_votes DROP COLUMN args_digest, DROP COLUMN policy_version`);
  }
}
