import { Injectable } from '@nestjs/common';
import { ConfigCache } from '@warden/database';
import { DataSource, type EntityManager } from 'typeorm';
import type { Principal } from '../principal.js';
import { InvalidTokenError, type VerifiedClaims } from '../tokens/token-verifier.js';
import { recordIdentityChange } from './identity-audit.js';

const CACHE_TTL_MS = 30_000;

interface CachedPrincipal {
  principal: Principal;
  until: number;
  /** Managed by the directory (SCIM): kept only while every directory change is announced to this instance. */
  directory: boolean;
}

/**
 * Creates orgs, users and memberships just in time from token claims; cached briefly so a request costs no query.
 * A member the directory manages keeps the directory's roles and is refused once deactivated: the directory's writes
 * announce themselves (NOTIFY `warden_config` with the org id, followed through ConfigCache), every instance drops
 * that org's principals at once, and while changes cannot be announced such principals are not cached (fail closed).
 */
@Injectable()
export class ProvisioningService {
  private readonly cache = new Map<string, CachedPrincipal>();
  /** Bumped by every change notice: a principal read before one is used once, not cached. */
  private generation = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ConfigCache,
  ) {
    changes.follow((orgId) => this.forget(orgId));
  }

  async principalFor(claims: VerifiedClaims): Promise<Principal> {
    const key = JSON.stringify([
      claims.sub,
      claims.orgExternalId,
      claims.roles,
      claims.email,
      claims.name,
      claims.identities,
    ]);
    const hit = this.cache.get(key);
    if (hit && hit.until > Date.now() && (!hit.directory || this.changes.announcesChanges)) return hit.principal;
    const generation = this.generation;
    const { principal, directory } = await this.provision(claims);
    if (generation !== this.generation) return principal;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { principal, directory, until: Date.now() + CACHE_TTL_MS });
    return principal;
  }

  /** Forgets the principals of an org (`*`: of every org), e.g. after a directory change. */
  forget(orgId: string): void {
    this.generation++;
    for (const [key, entry] of this.cache) if (orgId === '*' || entry.principal.orgId === orgId) this.cache.delete(key);
  }

  private async provision(claims: VerifiedClaims): Promise<{ principal: Principal; directory: boolean }> {
    return this.dataSource.transaction(async (m) => {
      const [org] = await m.query<[{ id: string }]>(
        `INSERT INTO orgs (external_id, name) VALUES ($1, $1)
         ON CONFLICT (external_id) DO UPDATE SET external_id = EXCLUDED.external_id RETURNING id`,
        [claims.orgExternalId],
      );
      const [user] = await m.query<[{ id: string; email: string | null; name: string | null }]>(
        `INSERT INTO users (sub, email, name) VALUES ($1, $2, $3)
         ON CONFLICT (sub) DO UPDATE SET email = COALESCE(EXCLUDED.email, users.email),
           name = COALESCE(EXCLUDED.name, users.name), updated_at = now()
         RETURNING id, email, name`,
        [claims.sub, claims.email ?? null, claims.name ?? null],
      );
      // The directory's members keep the directory's roles: their token's roles claim changes nothing.
      await m.query(
        `INSERT INTO org_members (org_id, user_id, roles) VALUES ($1, $2, $3)
         ON CONFLICT (org_id, user_id) DO UPDATE SET roles = EXCLUDED.roles, updated_at = now()
         WHERE org_members.roles IS DISTINCT FROM EXCLUDED.roles AND NOT org_members.directory_managed`,
        [org.id, user.id, claims.roles],
      );
      const [member] = await m.query<[{ roles: string[]; active: boolean; directory_managed: boolean }]>(
        `SELECT roles, active, directory_managed FROM org_members WHERE org_id = $1 AND user_id = $2`,
        [org.id, user.id],
      );
      if (!member.active) throw new InvalidTokenError(`user ${claims.sub} is deactivated in the directory`);
      for (const [platform, externalId] of Object.entries(claims.identities ?? {})) {
        await linkFromSso(m, { orgId: org.id, userId: user.id, platform, externalId: externalId });
      }
      const principal: Principal = {
        userId: user.id,
        sub: claims.sub,
        orgId: org.id,
        orgExternalId: claims.orgExternalId,
        roles: member.directory_managed ? member.roles : claims.roles,
        email: user.email ?? undefined,
        name: user.name ?? undefined,
      };
      return { principal, directory: member.directory_managed };
    });
  }
}

/**
 * The IdP vouches for this identity: link it to this user (taking it from anyone else it was linked to), and record
 * every change in `identity_audit` as method `sso`. Nothing is written when the link is already so.
 */
async function linkFromSso(
  m: EntityManager,
  i: { orgId: string; userId: string; platform: string; externalId: string },
): Promise<void> {
  const [current] = await m.query<[{ user_id: string; external_id: string }?]>(
    `SELECT user_id, external_id FROM identities WHERE org_id = $1 AND user_id = $2 AND platform = $3`,
    [i.orgId, i.userId, i.platform],
  );
  if (current?.external_id === i.externalId) return;
  const deleted: unknown[] = await m.query(
    `DELETE FROM identities WHERE org_id = $1 AND platform = $2 AND external_id = $3 RETURNING user_id`,
    [i.orgId, i.platform, i.externalId],
  );
  // TypeORM answers a DELETE ... RETURNING with [rows, rowCount].
  const taken = (Array.isArray(deleted[0]) ? deleted[0] : deleted) as Array<{ user_id: string }>;
  for (const t of taken) {
    await recordIdentityChange(m, {
      orgId: i.orgId,
      userId: t.user_id,
      platform: i.platform,
      externalId: null,
      previousExternalId: i.externalId,
      action: 'unlink',
      method: 'sso',
      byUserId: i.userId,
    });
  }
  await m.query(`DELETE FROM identities WHERE org_id = $1 AND user_id = $2 AND platform = $3`, [
    i.orgId,
    i.userId,
    i.platform,
  ]);
  await m.query(`INSERT INTO identities (org_id, user_id, platform, external_id) VALUES ($1, $2, $3, $4)`, [
    i.orgId,
    i.userId,
    i.platform,
    i.externalId,
  ]);
  await recordIdentityChange(m, {
    orgId: i.orgId,
    userId: i.userId,
    platform: i.platform,
    externalId: i.externalId,
    previousExternalId: current?.external_id ?? null,
    action: current ? 'relink' : 'link',
    method: 'sso',
    byUserId: i.userId,
  });
}
