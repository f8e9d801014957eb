import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Org-scoped model API keys (issue #16): sealed with APP_ENCRYPTION_KEY like channel secrets, never returned; an agent
 * names one by id in `model_config_json.model.api_key_credential_id`.
 */
export class LlmCredentials1765000200000 implements MigrationInterface {
  name = 'LlmCredentials1765000200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE llm_credentials (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      name text NOT NULL,
      secret_enc text NOT NULL,
      created_by uuid NULL REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (org_id, name)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE llm_credentials`);
  }
}
