import { Injectable } from '@nestjs/common';
import type { Queryable } from '@warden/common';
import { ConfigCache } from '@warden/database';
import { DataSource } from 'typeorm';

export interface OrgHooksRecord {
  hooks: Record<string, unknown>;
  updatedBy: string | null;
  updatedAt: Date;
  /** The policy version of these hooks (read with them, so a run records the version of the hooks it got). */
  version: number | null;
}

/** The `org_hooks` table: one hooks config per org (the shape of `model_config_json.hooks`). */
@Injectable()
export class OrgHooksStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cache: ConfigCache,
  ) {}

  /** Read by every run: cached until the org's hooks change. */
  find(orgId: string): Promise<OrgHooksRecord | null> {
    return this.cache.get(orgId, 'org_hooks', () => this.load(orgId));
  }

  private async load(orgId: string): Promise<OrgHooksRecord | null> {
    const [row] = await this.dataSource.query<
      [{ hooks: Record<string, unknown>; updated_by: string | null; updated_at: Date; version: number | null }?]
    >(
      `SELECT hooks, updated_by, updated_at,
              (SELECT max(version) FROM policy_versions v
                WHERE v.subject_type = 'org_hooks' AND v.subject_id = h.org_id) AS version
         FROM org_hooks h WHERE org_id = $1`,
      [orgId],
    );
    return row
      ? { hooks: row.hooks, updatedBy: row.updated_by, updatedAt: row.updated_at, version: row.version }
      : null;
  }

  /** Drops the org's cached hooks (after a change commits; the database trigger tells other instances). */
  forget(orgId: string): void {
    this.cache.invalidate(orgId);
  }

  /** The stored row as it is now (uncached), read inside `tx` when given. */
  async current(orgId: string, tx: Queryable = this.dataSource): Promise<Record<string, unknown> | null> {
    const [row] = await tx.query<[{ hooks: Record<string, unknown> }?]>(
      `SELECT hooks FROM org_hooks WHERE org_id = $1 FOR UPDATE`,
      [orgId],
    );
    return row?.hooks ?? null;
  }

  /**
   * Writes inside `tx` when given (the caller's transaction, with its audit event); `forget` the cache after commit.
   */
  async save(
    orgId: string,
    hooks: Record<string, unknown>,
    userId: string | null,
    tx: Queryable = this.dataSource,
  ): Promise<Omit<OrgHooksRecord, 'version'>> {
    const [row]: Array<{ hooks: Record<string, unknown>; updated_by: string | null; updated_at: Date }> =
      await tx.query(
        `INSERT INTO org_hooks (org_id, hooks, updated_by, updated_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (org_id) DO UPDATE SET hooks = EXCLUDED.hooks, updated_by = EXCLUDED.updated_by, updated_at = now()
       RETURNING hooks, updated_by, updated_at`,
        [orgId, JSON.stringify(hooks), userId],
      );
    return { hooks: row.hooks, updatedBy: row.updated_by, updatedAt: row.updated_at };
  }
}
