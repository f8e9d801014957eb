import { Injectable } from '@nestjs/common';
import { ConfigCache } from '@warden/database';
import { DataSource } from 'typeorm';

export interface OrgHooksRecord {
  hooks: Record<string, unknown>;
  updatedBy: string | null;
  updatedAt: Date;
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
    const [row] = await this.dataSource.query<[{ hooks: Record<string, unknown>; updated_by: string | null; updated_at: Date }?]>(
      `SELECT hooks, updated_by, updated_at FROM org_hooks WHERE org_id = $1`,
      [orgId],
    );
    return row ? { hooks: row.hooks, updatedBy: row.updated_by, updatedAt: row.updated_at } : null;
  }

  async save(orgId: string, hooks: Record<string, unknown>, userId: string | null): Promise<OrgHooksRecord> {
    const [row]: Array<{ hooks: Record<string, unknown>; updated_by: string | null; updated_at: Date }> = await this.dataSource.query(
      `INSERT INTO org_hooks (org_id, hooks, updated_by, updated_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (org_id) DO UPDATE SET hooks = EXCLUDED.hooks, updated_by = EXCLUDED.updated_by, updated_at = now()
       RETURNING hooks, updated_by, updated_at`,
      [orgId, JSON.stringify(hooks), userId],
    );
    this.cache.invalidate(orgId);
    return { hooks: row.hooks, updatedBy: row.updated_by, updatedAt: row.updated_at };
  }
}
