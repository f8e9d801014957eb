import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The model server of an agent without a base_url (as libs/agents/src/llm/llm-key-origin.ts). */
const DEFAULT_LLM_BASE_URL = 'https://api.openai.com/v1';

/** The origin of an absolute http(s) URL, normalized as the app does (WHATWG URL); null otherwise. */
function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * An LLM credential is bound to the origin (scheme, host, port) it was stored for (#29): its key is sent only to a
 * model server there. A credential stored before this is bound to the one origin its agents already send it to;
 * when no agent uses it, or its agents disagree, it stays unbound (null): refused at save and run until an admin
 * gives its origin together with the key again (PUT /api/llm-credentials/:id).
 */
export class LlmCredentialOrigin1766200005001 implements MigrationInterface {
  name = 'LlmCredentialOrigin1766200005001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE llm_credentials ADD COLUMN origin text NULL`);
    const uses = (await q.query(
      `SELECT c.id AS credential_id, a.model_config_json->'model'->>'base_url' AS base_url
         FROM llm_credentials c
         JOIN agents a ON a.org_id = c.org_id AND a.model_config_json->'model'->>'api_key_credential_id' = c.id::text`,
    )) as Array<{ credential_id: string; base_url: string | null }>;
    const origins = new Map<string, Set<string | null>>();
    for (const use of uses) {
      const seen = origins.get(use.credential_id) ?? new Set<string | null>();
      seen.add(originOf(use.base_url ?? DEFAULT_LLM_BASE_URL));
      origins.set(use.credential_id, seen);
    }
    for (const [id, seen] of origins) {
      const [only] = [...seen];
      if (seen.size === 1 && only) await q.query(`UPDATE llm_credentials SET origin = $2 WHERE id = $1`, [id, only]);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE llm_credentials DROP COLUMN origin`);
  }
}
