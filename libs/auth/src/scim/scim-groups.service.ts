import { Injectable } from '@nestjs/common';
import { AuditTrail, DomainErrorKind, ScimError } from '@warden/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ProvisioningService } from '../users/provisioning.service.js';
import type { ScimEquality } from './scim-filter.js';
import { patchGroup, type ScimGroupState } from './scim-group.js';
import { invalidValue, type PatchOperation } from './scim-patch.js';
import { announce, recomputeRoles, scimEvent, type ScimActor } from './scim-writes.js';

export interface StoredScimGroup {
  id: string;
  state: ScimGroupState;
  memberNames: Map<string, string>;
  created: Date;
  lastModified: Date;
}

interface GroupRow {
  id: string;
  display_name: string;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
  members: Array<{ id: string; sub: string }>;
  total: string;
}

const SELECT = `SELECT g.id, g.display_name, g.external_id, g.created_at, g.updated_at,
    COALESCE((SELECT json_agg(json_build_object('id', u.id, 'sub', u.sub) ORDER BY u.sub)
                FROM scim_group_members gm JOIN users u ON u.id = gm.user_id
               WHERE gm.group_id = g.id), '[]') AS members,
    count(*) OVER () AS total
  FROM scim_groups g WHERE g.org_id = $1`;
const FILTER_SQL: Record<string, string> = {
  displayName: 'lower(g.display_name) = lower($2)',
  externalId: 'g.external_id = $2',
  id: 'g.id::text = $2',
};
export const GROUP_FILTER_ATTRIBUTES = Object.keys(FILTER_SQL);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const toStored = (r: GroupRow): StoredScimGroup => ({
  id: r.id,
  state: { displayName: r.display_name, externalId: r.external_id, members: r.members.map((x) => x.id) },
  memberNames: new Map(r.members.map((x) => [x.id, x.sub])),
  created: new Date(r.created_at),
  lastModified: new Date(r.updated_at),
});

/**
 * The directory's groups of one org (SCIM `/Groups`). A group's display name is a Warden role: approver policies
 * naming `role:<group>` follow the directory, and a member removed from the group stops qualifying at once.
 */
@Injectable()
export class ScimGroupsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditTrail,
    private readonly provisioning: ProvisioningService,
  ) {}

  async list(orgId: string, filter: ScimEquality | null, page: { offset: number; limit: number }) {
    const where = filter ? ` AND ${FILTER_SQL[filter.attribute]}` : '';
    const rows = await this.dataSource.query<GroupRow[]>(
      `${SELECT}${where} ORDER BY g.display_name, g.id OFFSET ${page.offset} LIMIT ${page.limit}`,
      filter ? [orgId, filter.value] : [orgId],
    );
    return { total: rows.length ? Number(rows[0].total) : 0, groups: rows.map(toStored) };
  }

  async get(orgId: string, id: string, m: EntityManager | DataSource = this.dataSource): Promise<StoredScimGroup> {
    const [row] = UUID.test(id)
      ? await m.query<Array<GroupRow | undefined>>(`${SELECT} AND g.id = $2`, [orgId, id])
      : [];
    if (!row) throw new ScimError(DomainErrorKind.NotFound, `group ${id} not found`);
    return toStored(row);
  }

  async create(actor: ScimActor, state: ScimGroupState): Promise<StoredScimGroup> {
    return this.change(actor, async (m) => {
      const [row] = await m.query<Array<{ id: string } | undefined>>(
        `INSERT INTO scim_groups (org_id, display_name, external_id) VALUES ($1, $2, $3)
         ON CONFLICT (org_id, display_name) DO NOTHING RETURNING id`,
        [actor.orgId, state.displayName, state.externalId],
      );
      if (!row)
        throw new ScimError(DomainErrorKind.Conflict, `group ${state.displayName} already exists`, 'uniqueness');
      await this.audit.record(
        scimEvent(actor, 'scim.group_created', { type: 'group', id: row.id }, { display_name: state.displayName }),
        m,
      );
      return this.write(m, actor, { id: row.id, state: { ...state, members: [] } }, state);
    });
  }

  async replace(actor: ScimActor, id: string, next: ScimGroupState): Promise<StoredScimGroup> {
    return this.change(actor, async (m) => this.write(m, actor, await this.get(actor.orgId, id, m), next));
  }

  async patch(actor: ScimActor, id: string, ops: PatchOperation[]): Promise<StoredScimGroup> {
    return this.change(actor, async (m) => {
      const current = await this.get(actor.orgId, id, m);
      return this.write(m, actor, current, patchGroup(current.state, ops));
    });
  }

  async remove(actor: ScimActor, id: string): Promise<void> {
    await this.change(actor, async (m) => {
      const current = await this.get(actor.orgId, id, m);
      await m.query(`DELETE FROM scim_groups WHERE id = $1`, [id]);
      await recomputeRoles(m, actor.orgId, current.state.members);
      await this.audit.record(
        scimEvent(actor, 'scim.group_deleted', { type: 'group', id }, { display_name: current.state.displayName }),
        m,
      );
    });
  }

  /** Writes the new name and members, recomputes the roles of everyone whose membership changed, audits each change. */
  private async write(
    m: EntityManager,
    actor: ScimActor,
    current: Pick<StoredScimGroup, 'id' | 'state'>,
    next: ScimGroupState,
  ) {
    const before = new Set(current.state.members);
    const after = new Set(next.members);
    const added = [...after].filter((u) => !before.has(u));
    const removed = [...before].filter((u) => !after.has(u));
    await this.checkMembers(m, actor.orgId, added);
    const renamed = next.displayName !== current.state.displayName;
    if (renamed || next.externalId !== current.state.externalId) {
      const [clash] = await m.query<unknown[]>(
        `SELECT 1 FROM scim_groups WHERE org_id = $1 AND display_name = $2 AND id <> $3`,
        [actor.orgId, next.displayName, current.id],
      );
      if (clash)
        throw new ScimError(DomainErrorKind.Conflict, `group ${next.displayName} already exists`, 'uniqueness');
      await m.query(`UPDATE scim_groups SET display_name = $2, external_id = $3, updated_at = now() WHERE id = $1`, [
        current.id,
        next.displayName,
        next.externalId,
      ]);
    }
    if (added.length) {
      await m.query(
        `INSERT INTO scim_group_members (group_id, user_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`,
        [current.id, added],
      );
    }
    if (removed.length) {
      await m.query(`DELETE FROM scim_group_members WHERE group_id = $1 AND user_id = ANY($2::uuid[])`, [
        current.id,
        removed,
      ]);
    }
    await recomputeRoles(m, actor.orgId, renamed ? [...new Set([...before, ...after])] : [...added, ...removed]);
    const entity = { type: 'group' as const, id: current.id };
    const events = [
      ...(renamed
        ? [scimEvent(actor, 'scim.group_renamed', entity, { from: current.state.displayName, to: next.displayName })]
        : []),
      ...added.map((u) =>
        scimEvent(actor, 'scim.group_member_added', entity, { display_name: next.displayName, user_id: u }),
      ),
      ...removed.map((u) =>
        scimEvent(actor, 'scim.group_member_removed', entity, { display_name: next.displayName, user_id: u }),
      ),
    ];
    if (events.length) await this.audit.record(events, m);
    await m.query(`UPDATE scim_groups SET updated_at = now() WHERE id = $1`, [current.id]);
    return this.get(actor.orgId, current.id, m);
  }

  /** Members are the org's directory users; anything else is named in a 400. */
  private async checkMembers(m: EntityManager, orgId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const bad = ids.filter((id) => !UUID.test(id));
    const rows = await m.query<Array<{ id: string }>>(
      `SELECT user_id AS id FROM org_members WHERE org_id = $1 AND directory_managed AND user_id = ANY($2::uuid[])`,
      [orgId, ids.filter((id) => UUID.test(id))],
    );
    const known = new Set(rows.map((r) => r.id));
    bad.push(...ids.filter((id) => UUID.test(id) && !known.has(id)));
    if (bad.length)
      throw invalidValue(
        `unknown member${bad.length === 1 ? '' : 's'} ${bad.slice(0, 5).join(', ')}: provision the users first`,
      );
  }

  private async change<T>(actor: ScimActor, work: (m: EntityManager) => Promise<T>): Promise<T> {
    const result = await this.dataSource.transaction(async (m) => {
      const out = await work(m);
      await announce(m, actor.orgId);
      return out;
    });
    this.provisioning.forget(actor.orgId);
    return result;
  }
}
