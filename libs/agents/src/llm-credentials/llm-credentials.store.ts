import { Injectable } from '@nestjs/common';
import { joinUser } from '@warden/auth';
import { isUuid, type Queryable } from '@warden/common';
import { DataSource } from 'typeorm';

/** A credential as it may be shown: never its secret. */
export interface LlmCredentialRow {
  id: string;
  name: string;
  /**
   * The one origin (scheme, host, port) its key may be sent to; null for a key stored before origins, not yet
   * bound.
   */
  origin: string | null;
  createdAt: Date;
  /** The creator's sub (null once the user is gone). */
  createdBy: string | null;
}

/** The deleted credential, 'missing', or the names of the agents that still use it. */
export type DeleteOutcome = Pick<LlmCredentialRow, 'id' | 'name' | 'origin'> | 'missing' | string[];

/** What a write stores: the key sealed (left out of an update, the stored key stays). */
export interface CredentialWrite {
  name: string;
  origin: string;
  sealed?: string;
}

/** A row of `llm_credentials` with its creator's sub joined in. */
interface CredentialDbRow {
  id: string;
  name: string;
  origin: string | null;
  created_at: Date | string;
  created_by_sub: string | null;
}

const toRow = (r: CredentialDbRow): LlmCredentialRow => ({
  id: r.id,
  name: r.name,
  origin: r.origin,
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
    write: Required<CredentialWrite>,
    createdBy: string,
    tx: Queryable = this.dataSource,
  ): Promise<LlmCredentialRow | null> {
    const [row] = await tx.query<[CredentialDbRow?]>(
      `WITH inserted AS (
         INSERT INTO llm_credentials (org_id, name, origin, secret_enc, created_by) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (org_id, name) DO NOTHING RETURNING *)
       SELECT inserted.*, u.sub AS created_by_sub FROM inserted ${joinUser('u', 'inserted.created_by')}`,
      [orgId, write.name, write.origin, write.sealed, createdBy],
    );
    return row ? toRow(row) : null;
  }

  /** Null when there is no such credential; 'taken' when another credential of the org has the name. */
  async update(
    orgId: string,
    id: string,
    write: CredentialWrite,
    tx: Queryable,
  ): Promise<LlmCredentialRow | null | 'taken'> {
    const clash: unknown[] = await tx.query(
      `SELECT 1 FROM llm_credentials WHERE org_id = $1 AND name = $2 AND id <> $3`,
      [orgId, write.name, id],
    );
    if (clash.length > 0) return 'taken';
    const [row] = await tx.query<[CredentialDbRow?]>(
      `WITH updated AS (
         UPDATE llm_credentials SET name = $3, origin = $4, secret_enc = COALESCE($5, secret_enc)
          WHERE id = $1 AND org_id = $2 RETURNING *)
       SELECT updated.*, u.sub AS created_by_sub FROM updated ${joinUser('u', 'updated.created_by')}`,
      [id, orgId, write.name, write.origin, write.sealed ?? null],
    );
    return row ? toRow(row) : null;
  }

  async find(orgId: string, id: string, tx: Queryable = this.dataSource): Promise<LlmCredentialRow | null> {
    if (!isUuid(id)) return null;
    const [row] = await tx.query<[CredentialDbRow?]>(
      `SELECT c.*, u.sub AS created_by_sub FROM llm_credentials c ${joinUser('u', 'c.created_by')}
        WHERE c.id = $1 AND c.org_id = $2`,
      [id, orgId],
    );
    return row ? toRow(row) : null;
  }

  async list(orgId: string): Promise<LlmCredentialRow[]> {
    const rows = await this.dataSource.query<CredentialDbRow[]>(
      `SELECT c.*, u.sub AS created_by_sub FROM llm_credentials c ${joinUser('u', 'c.created_by')}
        WHERE c.org_id = $1 ORDER BY c.created_at, c.id`,
      [orgId],
    );
    return rows.map(toRow);
  }

  /** The sealed key and the origin it is bound to, for the model call only. */
  async sealedSecret(orgId: string, id: string): Promise<{ sealed: string; origin: string | null } | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.dataSource.query<[{ secret_enc: string; origin: string | null }?]>(
      `SELECT secret_enc, origin FROM llm_credentials WHERE id = $1 AND org_id = $2`,
      [id, orgId],
    );
    return row ? { sealed: row.secret_enc, origin: row.origin } : null;
  }

  /** Names of the org's agents whose model names this credential. */
  async agentsUsing(orgId: string, id: string): Promise<string[]> {
    const rows: Array<{ name: string }> = await this.dataSource.query(
      `SELECT name FROM agents
        WHERE org_id = $1 AND model_config_json->'model'->>'api_key_credential_id' = $2 ORDER BY name`,
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
         AND NOT EXISTS (SELECT 1 FROM agents
                          WHERE org_id = $2 AND model_config_json->'model'->>'api_key_credential_id' = $1::text)
       RETURNING id, name, origin`,
      [id, orgId],
    );
    const deleted = (Array.isArray(result[0]) ? result[0] : result) as Array<
      Exclude<DeleteOutcome, 'missing' | string[]>
    >;
    if (deleted.length > 0) return { id: deleted[0].id, name: deleted[0].name, origin: deleted[0].origin };
    if (!(await this.find(orgId, id))) return 'missing';
    return this.agentsUsing(orgId, id);
  }
}
