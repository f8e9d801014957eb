import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { BadInputError, ConflictError, NotFoundError } from '@warden/common';
import { DataSource, Repository } from 'typeorm';
import { recordIdentityChange } from './identity-audit.js';
import { Identity, type ChatPlatform } from './user.entity.js';

export interface MemberView {
  userId: string;
  sub: string;
  email: string | null;
  name: string | null;
  roles: string[];
  identities: Partial<Record<ChatPlatform, string>>;
  /** False when the directory (SCIM) deactivated the member: they decide nothing, whatever their roles. */
  active?: boolean;
}

/**
 * How an identity changed hands: an admin set it, its owner proved it with a one-time code, a user unlinked their own,
 * or the IdP asserted it.
 */
export type IdentityChangeMethod = 'admin' | 'proof' | 'self' | 'sso';

export interface IdentityAuditRow {
  id: string;
  sub: string;
  platform: ChatPlatform;
  external_id: string | null;
  previous_external_id: string | null;
  action: 'link' | 'unlink' | 'relink';
  method: IdentityChangeMethod;
  by_sub: string | null;
  created_at: Date;
}

export const IDENTITY_FIELDS: Record<string, ChatPlatform> = {
  feishu_open_id: 'feishu',
  slack_user_id: 'slack',
  wecom_user_id: 'wecom',
};

/** Users as seen from one org: every lookup is scoped by org id, so another org's user is simply not found. */
@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Identity) private readonly identities: Repository<Identity>,
  ) {}

  async listMembers(orgId: string): Promise<MemberView[]> {
    const rows = await this.dataSource.query<
      Array<{ id: string; sub: string; email: string | null; name: string | null; roles: string[] }>
    >(
      `SELECT u.id, u.sub, u.email, u.name, m.roles FROM org_members m JOIN users u ON u.id = m.user_id
       WHERE m.org_id = $1 ORDER BY u.sub`,
      [orgId],
    );
    const ids = await this.identities.findBy({ orgId });
    return rows.map((r) => ({
      userId: r.id,
      sub: r.sub,
      email: r.email,
      name: r.name,
      roles: r.roles,
      identities: Object.fromEntries(ids.filter((i) => i.userId === r.id).map((i) => [i.platform, i.externalId])),
    }));
  }

  async memberBySub(orgId: string, sub: string): Promise<MemberView> {
    const member = (await this.listMembers(orgId)).find((m) => m.sub === sub);
    if (!member) throw new NotFoundError('user', sub);
    return member;
  }

  /** The member with their chat identities, in one query (decisions and card deliveries ask for it on their path). */
  async memberById(orgId: string, userId: string): Promise<MemberView | null> {
    const [row] = await this.dataSource.query<
      Array<
        | {
            sub: string;
            email: string | null;
            name: string | null;
            roles: string[];
            active: boolean;
            identities: MemberView['identities'] | null;
          }
        | undefined
      >
    >(
      `SELECT u.sub, u.email, u.name, m.roles, m.active,
              (SELECT json_object_agg(i.platform, i.external_id) FROM identities i
                WHERE i.org_id = m.org_id AND i.user_id = m.user_id) AS identities
         FROM org_members m JOIN users u ON u.id = m.user_id WHERE m.org_id = $1 AND m.user_id = $2`,
      [orgId, userId],
    );
    if (!row) return null;
    const { sub, email, name, roles, active } = row;
    return { userId, sub, email, name, roles, active, identities: row.identities ?? {} };
  }

  /** The org member linked to a chat-app account, or null. */
  async memberByIdentity(orgId: string, platform: ChatPlatform, externalId: string): Promise<MemberView | null> {
    const identity = await this.identities.findOneBy({ orgId, platform, externalId });
    return identity ? this.memberById(orgId, identity.userId) : null;
  }

  /**
   * Links or unlinks chat accounts. Callers decide who may (an admin, the proven owner of the account, or the user
   * unlinking themself); every change is written to `identity_audit` in the same transaction.
   */
  async setIdentities(
    orgId: string,
    sub: string,
    links: Partial<Record<ChatPlatform, string | null>>,
    audit: { byUserId: string | null; method: IdentityChangeMethod },
  ): Promise<MemberView> {
    const member = await this.memberBySub(orgId, sub);
    if (Object.keys(links).length === 0)
      throw new BadInputError('give at least one of feishu_open_id, slack_user_id, wecom_user_id');
    await this.dataSource.transaction(async (m) => {
      for (const [platform, externalId] of Object.entries(links) as Array<[ChatPlatform, string | null]>) {
        const previous = member.identities[platform] ?? null;
        if (previous === (externalId ?? null)) continue;
        await m.delete(Identity, { orgId, userId: member.userId, platform });
        if (externalId) {
          const taken = await m.findOneBy(Identity, { orgId, platform, externalId });
          if (taken) throw new ConflictError(`${platform} account ${externalId} is already linked to another user`);
          await m.insert(Identity, { orgId, userId: member.userId, platform, externalId });
        }
        const action = !externalId ? 'unlink' : previous ? 'relink' : 'link';
        await recordIdentityChange(m, {
          orgId,
          userId: member.userId,
          platform,
          externalId: externalId ?? null,
          previousExternalId: previous,
          action,
          method: audit.method,
          byUserId: audit.byUserId,
        });
      }
    });
    return this.memberBySub(orgId, sub);
  }

  /** The identity audit of an org, newest first. */
  async identityAudit(orgId: string, limit = 200): Promise<IdentityAuditRow[]> {
    return this.dataSource.query(
      `SELECT a.id, u.sub, a.platform, a.external_id, a.previous_external_id, a.action, a.method,
              b.sub AS by_sub, a.created_at
         FROM identity_audit a JOIN users u ON u.id = a.user_id LEFT JOIN users b ON b.id = a.by_user_id
        WHERE a.org_id = $1 ORDER BY a.created_at DESC, a.id LIMIT $2`,
      [orgId, limit],
    );
  }
}
