import { LlmCredentialOrigin1766200005001 } from '../../libs/database/src/migrations/1766200005001-llm-credential-origin.js';
import type { QueryRunner } from 'typeorm';
import { mediumDb, type MediumDb } from './medium-db.js';

/**
 * The migration that binds LLM credentials to an origin (#29) binds each existing key to the one origin its agents
 * already send it to, and leaves any other key unbound (null: it goes nowhere until an admin re-binds it with the key).
 */
describe('migration: existing LLM credentials get the origin their agents use', () => {
  let db: MediumDb;

  beforeAll(async () => {
    db = await mediumDb();
  });
  afterAll(() => db.close());

  it('one origin among its agents (default ports and case normalized) binds it; none or several leave it unbound', async () => {
    const q = (sql: string, params: unknown[] = []) => db.dataSource.query(sql, params);
    const migration = new LlmCredentialOrigin1766200005001();
    // The database is migrated: go back to before this migration, with keys and agents as they were then.
    await migration.down({ query: q } as unknown as QueryRunner);
    const credential = async (name: string): Promise<string> =>
      (
        await q(`INSERT INTO llm_credentials (org_id, name, secret_enc) VALUES ($1, $2, 'sealed') RETURNING id`, [
          db.orgId,
          name,
        ])
      )[0].id;
    const agent = (name: string, credentialId: string, baseUrl?: string) =>
      q(`INSERT INTO agents (org_id, name, model_config_json) VALUES ($1, $2, $3)`, [
        db.orgId,
        name,
        {
          model: {
            provider: 'openai',
            model: 'm',
            api_key_credential_id: credentialId,
            ...(baseUrl ? { base_url: baseUrl } : {}),
          },
        },
      ]);
    const ids = {
      corp: await credential('corp'),
      openai: await credential('openai'),
      unused: await credential('unused'),
      split: await credential('split'),
    };
    await agent('a1', ids.corp, 'HTTPS://LLM.corp.example:443/v1');
    await agent('a2', ids.corp, 'https://llm.corp.example/v2');
    await agent('a3', ids.openai);
    await agent('a4', ids.split, 'https://one.example/v1');
    await agent('a5', ids.split, 'https://two.example/v1');

    await migration.up({ query: q } as unknown as QueryRunner);

    const rows: Array<{ name: string; origin: string | null }> = await q(
      `SELECT name, origin FROM llm_credentials ORDER BY name`,
    );
    expect(Object.fromEntries(rows.map((r) => [r.name, r.origin]))).toEqual({
      corp: 'https://llm.corp.example',
      openai: 'https://api.openai.com',
      split: null,
      unused: null,
    });
  });
});
