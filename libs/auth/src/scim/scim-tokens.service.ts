import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AuditTrail, NotFoundError } from '@warden/common';
import { DataSource } from 'typeorm';

export interface ScimTokenView {
  id: string;
  label: string | null;
  created_by: string | null;
  created_at: string;
  revoked_at: string | null;
}

interface TokenRow {
  id: string;
  label: string | null;
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
const view = (r: TokenRow): ScimTokenView => ({
  id: r.id,
  label: r.label,
  created_by: r.created_by,
  created_at: new Date(r.created_at).toISOString(),
  revoked_at: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
});

/**
 * SCIM bearer tokens, one or more per org: the secret is shown once at creation and only its SHA-256 is stored.
 * Creating and revoking one is audited in the hash-chained trail (kind `identity`): a token provisions identities.
 */
@Injectable()
export class ScimTokensService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditTrail,
  ) {}

  async create(orgId: string, byUserId: string, label: string | null): Promise<ScimTokenView & { token: string }> {
    const token = `scim_${randomBytes(32).toString('base64url')}`;
    return this.dataSource.transaction(async (m) => {
      const [row] = await m.query<TokenRow[]>(
        `INSERT INTO scim_tokens (org_id, token_hash, label, created_by) VALUES ($1, $2, $3, $4)
         RETURNING id, label, created_by, created_at, revoked_at`,
        [orgId, hashOf(token), label, byUserId],
      );
      await this.audit.configChange(
        {
          orgId,
          actor: byUserId,
          entityType: 'scim_token',
          entityId: row.id,
          change: 'created',
          before: null,
          after: { label },
          secretsChanged: ['token'],
        },
        m,
      );
      return { ...view(row), token };
    });
  }

  async list(orgId: string): Promise<ScimTokenView[]> {
    const rows = await this.dataSource.query<TokenRow[]>(
      `SELECT id, label, created_by, created_at, revoked_at FROM scim_tokens WHERE org_id = $1 ORDER BY created_at, id`,
      [orgId],
    );
    return rows.map(view);
  }

  async revoke(orgId: string, id: string, byUserId: string): Promise<ScimTokenView> {
    return this.dataSource.transaction(async (m) => {
      const [rows] = await m.query<[TokenRow[], number]>(
        `UPDATE scim_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE org_id = $1 AND id::text = $2
         RETURNING id, label, created_by, created_at, revoked_at`,
        [orgId, id],
      );
      if (!rows[0]) throw new NotFoundError('scim token', id);
      // Revoked is gone for the identity provider: recorded as a deletion (the row stays, with revoked_at).
      await this.audit.configChange(
        {
          orgId,
          actor: byUserId,
          entityType: 'scim_token',
          entityId: rows[0].id,
          change: 'deleted',
          before: { label: rows[0].label },
          after: null,
        },
        m,
      );
      return view(rows[0]);
    });
  }

  /** The org and token a SCIM bearer secret stands for, or null (unknown or revoked). */
  async resolve(secret: string): Promise<{ orgId: string; tokenId: string } | null> {
    const [row] = await this.dataSource.query<Array<{ org_id: string; id: string } | undefined>>(
      `SELECT org_id, id FROM scim_tokens WHERE token_hash = $1 AND revoked_at IS NULL`,
      [hashOf(secret)],
    );
    return row ? { orgId: row.org_id, tokenId: row.id } : null;
  }
}
