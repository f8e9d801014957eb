import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Conversation history (the Portal lists a member's past conversations and reopens one with its runs). */
export class ConversationHistory1765000300000 implements MigrationInterface {
  name = 'ConversationHistory1765000300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX conversations_org_user_idx ON conversations (org_id, user_id, updated_at DESC)`);
    await q.query(
      `CREATE INDEX agent_runs_conversation_idx ON agent_runs (conversation_id, created_at) WHERE conversation_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX agent_runs_conversation_idx`);
    await q.query(`DROP INDEX conversations_org_user_idx`);
  }
}
