import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Principal } from '../principal.js';
import type { VerifiedClaims } from '../tokens/token-verifier.js';

const CACHE_TTL_MS = 30_000;

/** Creates orgs, users and memberships just in time from token claims; cached briefly so a request costs no query. */
@Injectable()
export class ProvisioningService {
  private readonly cache = new Map<string, { principal: Principal; until: number }>();

  constructor(private readonly dataSource: DataSource) {}

  async principalFor(claims: VerifiedClaims): Promise<Principal> {
    const key = JSON.stringify([claims.sub, claims.orgExternalId, claims.roles, claims.email, claims.name]);
    const hit = this.cache.get(key);
    if (hit && hit.until > Date.now()) return hit.principal;
    const principal = await this.provision(claims);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { principal, until: Date.now() + CACHE_TTL_MS });
    return principal;
  }

  private async provision(claims: VerifiedClaims): Promise<Principal> {
    return this.dataSource.transaction(async (m) => {
      const [org] = await m.query(
        `INSERT INTO orgs (external_id, name) VALUES ($1, $1)
         ON CONFLICT (external_id) DO UPDATE SET external_id = EXCLUDED.external_id RETURNING id`,
        [claims.orgExternalId],
      );
      const [user] = await m.query(
        `INSERT INTO users (sub, email, name) VALUES ($1, $2, $3)
         ON CONFLICT (sub) DO UPDATE SET email = COALESCE(EXCLUDED.email, users.email),
           name = COALESCE(EXCLUDED.name, users.name), updated_at = now()
         RETURNING id, email, name`,
        [claims.sub, claims.email ?? null, claims.name ?? null],
      );
      await m.query(
        `INSERT INTO org_members (org_id, user_id, roles) VALUES ($1, $2, $3)
         ON CONFLICT (org_id, user_id) DO UPDATE SET roles = EXCLUDED.roles, updated_at = now()
         WHERE org_members.roles IS DISTINCT FROM EXCLUDED.roles`,
        [org.id, user.id, claims.roles],
      );
      return {
        userId: user.id,
        sub: claims.sub,
        orgId: org.id,
        orgExternalId: claims.orgExternalId,
        roles: claims.roles,
        email: user.email ?? undefined,
        name: user.name ?? undefined,
      };
    });
  }
}
