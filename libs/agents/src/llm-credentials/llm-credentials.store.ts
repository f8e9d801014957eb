import { Injectable } from '@nestjs/common';
import { isUuid, type Queryable } from '@warden/common';
import { DataSource } from 'typeorm';

/** A credential as it may be shown: never its secret. */
export interface LlmCredentialRow {
  id: string;
  name: string;
  createdAt: Date;
  /** The creator's sub (null once the user is gone). */
  createdBy: string | null;
}

/** The deleted credential's name, 'missing', or the names of the agents that still use it. */
export type DeleteOutcome = { name: string } | 'missing' | string[];

/** A row of `llm_credentials` with its creator's sub joined in. */
interface CredentialDbRow {
  id: string;
  name: string;
  created_at: Date | string;
  created_by_sub: string | null;
}

const toRow = (r: CredentialDbRow): LlmCredentialRow => ({
  id: r.id,
  name: r.name,
  createdAt: new Date(r.created_at),
  createdBy: r.created_by_sub ?? null,
});

/**
 * The SQL of `llm_credentials`; every statement is scoped to one org. Writes take the caller's transaction (`tx`),
 * where the change's audit event is written.
 */
@Injectable()
export class LlmCredentialsStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Null when the org already has a credential of this name. */
  async insert(
    orgId: string,
    name: string,
    sealed: string,
    createdBy: string,
    tx: Queryable = this.dataSource,
  ): Promise<LlmCredentialRow | null> {
    const [row] = await tx.query<[CredentialDbRow?]>(
      `WITH inserted AS (
         INSERT INTO llm_credentials (org_id, name, secret_enc, created_by) VALUES ($1, $2, $3, $4)
         ON CONFLICT (org_id, name) DO NOTHING RETURNING *)
       SELECT inserted.*, u.sub AS created_by_sub FROM inserted LEFT JOIN users u ON u.id = inserted.created_by`,
      [orgId, name, sealed, createdBy],
    );
    return row ? toRow(row) : null;
  }

  async list(orgId: string): Promise<LlmCredentialRow[]> {
    const rows = await this.dataSource.query<CredentialDbRow[]>(
      `SELECT c.*, u.sub AS created_by_sub FROM llm_credentials c LEFT JOIN users u ON u.id = c.created_by
        WHERE c.org_id = $1 ORDER BY c.created_at, c.id`,
      [orgId],
    );
    return rows.map(toRow);
  }

  async exists(orgId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM llm_credentials WHERE id = $1 AND org_id = $2`, [id, orgId]);
    return rows.length > 0;
  }

  async sealedSecret(orgId: string, id: string): Promise<string | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.dataSource.query<[{ secret_enc: string }?]>(
      `SELECT secret_enc FROM llm_credentials WHERE id = $1 AND org_id = $2`,
      [id, orgId],
    );
    return row?.secret_enc ?? null;
  }

  /** Names of the org's agents whose model names this credential. */
  async agentsUsing(orgId: string, id: string): Promise<string[]> {
    const rows: Array<{ name: string }> = await this.dataSource.query(
      `SELECT name FROM agents WHERE org_id = $1 AND model_config_json->'model'->>'api_key_credential_id' = $2 ORDER BY name`,
      [orgId, id],
    );
    return rows.map((r) => r.name);
  }

  /**
   * Deletes unless an agent names it. Returns the deleted credential, 'missing' or the names of the agents using it.
   * (An agent saved in the same instant may still name it; its runs then fail naming the missing credential.)
   */
  async delete(orgId: string, id: string, tx: Queryable = this.dataSource): Promise<DeleteOutcome> {
    if (!isUuid(id)) return 'missing';
    const result: unknown[] = await tx.query(
      `DELETE FROM llm_credentials WHERE id = $1 AND org_id = $2
         AND NOT EXISTS (SELECT 1 FROM agents WHERE org_id = $2 AND model_config_json->'model'->>'api_key_credential_id' = $1::text)
       RETURNING id, name`,
      [id, orgId],
    );
    const deleted = (Array.isArray(result[0]) ? result[0] : result) as Array<{ name: string }>;
    if (deleted.length > 0) return { name: deleted[0].name };
    if (!(await this.exists(orgId, id))) return 'missing';
    return this.agentsUsing(orgId, id);
  }
}
