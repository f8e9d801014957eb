import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Approve with changes (issue #20). A request keeps the action's parameter schema it was made under (`args_schema`,
 * what an edit is validated against); an approval with edited args moves the model's args to `original_args`, puts
 * the edited ones in `args` and rebinds `args_digest` to them in the same conditional statement that decides it.
 * `ask_reason`: a hook asked for this approval (Claude Code's `permissionDecision: "ask"`), with its reason.
 */
export class ApprovalEdits1765000500000 implements MigrationInterface {
  name = 'ApprovalEdits1765000500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE confirmation_requests
      ADD COLUMN args_schema jsonb NULL,
      ADD COLUMN original_args jsonb NULL,
      ADD COLUMN edited_by_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
      ADD COLUMN edited_by_name text NULL,
      ADD COLUMN ask_reason text NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE confirmation_requests DROP COLUMN ask_reason, DROP COLUMN edited_by_name, DROP COLUMN edited_by_user_id,
      DROP COLUMN original_args, DROP COLUMN args_schema`);
  }
}
