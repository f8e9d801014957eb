import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Why and in what context an approval was asked (#32): the rule that made the call need a person (`trigger`, e.g.
 * the action's condition `args.amount > 50000`) and the member's message the run started from (`member_message`),
 * fixed when the request is made, shown on cards and in the inbox. Nullable: older rows have neither.
 */
export class ConfirmationContext1766300900000 implements MigrationInterface {
  name = 'ConfirmationContext1766300900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE confirmation_requests ADD COLUMN "trigger" text, ADD COLUMN member_message text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE confirmation_requests DROP COLUMN "trigger", DROP COLUMN member_message`);
  }
}
