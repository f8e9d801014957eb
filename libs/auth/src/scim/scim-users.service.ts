import { Injectable } from '@nestjs/common';
import { AuditTrail, DomainErrorKind, ScimError } from '@warden/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ProvisioningService } from '../users/provisioning.service.js';
import type { ScimEquality } from './scim-filter.js';
import type { PatchOperation } from './scim-patch.js';
import { patchUser, shownName, type ScimUserState, type StoredScimUser } from './scim-user.js';
import { announce, recomputeRoles, scimEvent, type ScimActor } from './scim-writes.js';

interface UserRow {
  id: string;
  sub: string;
  email: string | null;
  name: string | null;
  active: boolean;
  scim_external_id: string | null;
  created_at: Date;
  updated_at: Date;
  groups: Array<{ id: string; displayName: string }>;
  total: string;
}

const SELECT = `SELECT u.id, u.sub, u.email, u.name, m.active, m.scim_external_id, m.created_at, m.updated_at,
    COALESCE((SELECT json_agg(json_build_object('id', g.id, 'displayName', g.display_name) ORDER BY g.display_name)
                FROM scim_group_members gm JOIN scim_groups g ON g.id = gm.group_id
               WHERE gm.user_id = u.id AND g.org_id = m.org_id), '[]') AS groups,
    count(*) OVER () AS total
  FROM org_members m JOIN users u ON u.id = m.user_id
 WHERE m.org_id = $1 AND m.directory_managed`;
const FILTER_SQL: Record<string, string> = {
  userName: 'lower(u.sub) = lower($2)',
  externalId: 'm.scim_external_id = $2',
  id: 'u.id::text = $2',
};
export const USER_FILTER_ATTRIBUTES = Object.keys(FILTER_SQL);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const toStored = (r: UserRow): StoredScimUser => ({
  id: r.id,
  state: { userName: r.sub, externalId: r.scim_external_id, displayName: r.name, email: r.email, active: r.active },
  groups: r.groups,
  created: new Date(r.created_at),
  lastModified: new Date(r.updated_at),
});

/**
 * The directory's users of one org (SCIM `/Users`). A user is a Warden user (`sub` = userName) whose membership the
 * directory manages: its roles come from its groups and `active: false` refuses it at once, everywhere.
 */
@Injectable()
export class ScimUsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditTrail,
    private readonly provisioning: ProvisioningService,
  ) {}

  async list(orgId: string, filter: ScimEquality | null, page: { offset: number; limit: number }) {
    const where = filter ? ` AND ${FILTER_SQL[filter.attribute]}` : '';
    const params: unknown[] = filter ? [orgId, filter.value] : [orgId];
    const rows = await this.dataSource.query<UserRow[]>(
      `${SELECT}${where} ORDER BY m.created_at, u.id OFFSET ${page.offset} LIMIT ${page.limit}`,
      params,
    );
    const total = rows.length ? Number(rows[0].total) : page.offset > 0 ? await this.count(orgId, where, params) : 0;
    return { total, users: rows.map(toStored) };
  }

  async get(orgId: string, id: string, m: EntityManager | DataSource = this.dataSource): Promise<StoredScimUser> {
    const [row] = UUID.test(id)
      ? await m.query<Array<UserRow | undefined>>(`${SELECT} AND u.id = $2`, [orgId, id])
      : [];
    if (!row) throw new ScimError(DomainErrorKind.NotFound, `user ${id} not found`);
    return toStored(row);
  }

  async create(actor: ScimActor, state: ScimUserState): Promise<StoredScimUser> {
    return this.change(actor.orgId, async (m) => {
      const [taken] = await m.query<Array<{ id: string } | undefined>>(
        `SELECT u.id FROM org_members m JOIN users u ON u.id = m.user_id
          WHERE m.org_id = $1 AND m.directory_managed AND lower(u.sub) = lower($2)`,
        [actor.orgId, state.userName],
      );
      if (taken)
        throw new ScimError(DomainErrorKind.Conflict, `userName ${state.userName} already exists`, 'uniqueness');
      const [user] = await m.query<Array<{ id: string }>>(
        `INSERT INTO users (sub, email, name) VALUES ($1, $2, $3)
         ON CONFLICT (sub) DO UPDATE SET email = COALESCE(EXCLUDED.email, users.email),
           name = COALESCE(EXCLUDED.name, users.name), updated_at = now() RETURNING id`,
        [state.userName, state.email, shownName(state)],
      );
      // A member who signed in before provisioning is taken over: from now on the directory decides their roles.
      await m.query(
        `INSERT INTO org_members (org_id, user_id, roles, active, directory_managed, scim_external_id)
         VALUES ($1, $2, '{}', $3, true, $4)
         ON CONFLICT (org_id, user_id) DO UPDATE SET roles = '{}', active = EXCLUDED.active, directory_managed = true,
           scim_external_id = EXCLUDED.scim_external_id, updated_at = now()`,
        [actor.orgId, user.id, state.active, state.externalId],
      );
      await recomputeRoles(m, actor.orgId, [user.id]);
      await this.audit.record(scimEvent(actor, 'scim.user_created', { type: 'user', id: user.id }, summary(state)), m);
      return this.get(actor.orgId, user.id, m);
    });
  }

  async replace(actor: ScimActor, id: string, next: ScimUserState): Promise<StoredScimUser> {
    return this.change(actor.orgId, async (m) => this.write(m, actor, await this.get(actor.orgId, id, m), next));
  }

  async patch(actor: ScimActor, id: string, ops: PatchOperation[]): Promise<StoredScimUser> {
    return this.change(actor.orgId, async (m) => {
      const current = await this.get(actor.orgId, id, m);
      return this.write(m, actor, current, patchUser(current.state, ops));
    });
  }

  /** DELETE: the member is deactivated and leaves every group (kept, so their tokens stay refused). */
  async remove(actor: ScimActor, id: string): Promise<void> {
    await this.change(actor.orgId, async (m) => {
      const current = await this.get(actor.orgId, id, m);
      await m.query(`UPDATE org_members SET active = false, updated_at = now() WHERE org_id = $1 AND user_id = $2`, [
        actor.orgId,
        id,
      ]);
      await m.query(
        `DELETE FROM scim_group_members gm USING scim_groups g
          WHERE g.id = gm.group_id AND g.org_id = $1 AND gm.user_id = $2`,
        [actor.orgId, id],
      );
      await recomputeRoles(m, actor.orgId, [id]);
      await this.audit.record(
        scimEvent(actor, 'scim.user_deleted', { type: 'user', id }, { user_name: current.state.userName }),
        m,
      );
    });
  }

  private async write(m: EntityManager, actor: ScimActor, current: StoredScimUser, next: ScimUserState) {
    if (next.userName.toLowerCase() !== current.state.userName.toLowerCase()) {
      const [other] = await m.query<Array<{ id: string } | undefined>>(
        `SELECT id FROM users WHERE lower(sub) = lower($1)`,
        [next.userName],
      );
      if (other) throw new ScimError(DomainErrorKind.Conflict, `userName ${next.userName} is taken`, 'uniqueness');
    }
    await m.query(`UPDATE users SET sub = $2, email = $3, name = $4, updated_at = now() WHERE id = $1`, [
      current.id,
      next.userName,
      next.email,
      shownName(next),
    ]);
    await m.query(
      `UPDATE org_members SET active = $3, scim_external_id = $4, updated_at = now()
        WHERE org_id = $1 AND user_id = $2`,
      [actor.orgId, current.id, next.active, next.externalId],
    );
    const action =
      current.state.active === next.active
        ? 'scim.user_updated'
        : next.active
          ? 'scim.user_reactivated'
          : 'scim.user_deactivated';
    await this.audit.record(scimEvent(actor, action, { type: 'user', id: current.id }, summary(next)), m);
    return this.get(actor.orgId, current.id, m);
  }

  /** One transaction that announces itself; this instance forgets the org's principals at once after commit. */
  private async change<T>(orgId: string, work: (m: EntityManager) => Promise<T>): Promise<T> {
    const result = await this.dataSource.transaction(async (m) => {
      const out = await work(m);
      await announce(m, orgId);
      return out;
    });
    this.provisioning.forget(orgId);
    return result;
  }

  private async count(orgId: string, where: string, params: unknown[]): Promise<number> {
    const [row] = await this.dataSource.query<Array<{ n: string }>>(
      `SELECT count(*) AS n FROM org_members m JOIN users u ON u.id = m.user_id
        WHERE m.org_id = $1 AND m.directory_managed${where}`,
      params,
    );
    return Number(row.n);
  }
}

const summary = (s: ScimUserState) => ({ user_name: s.userName, active: s.active, external_id: s.externalId });
