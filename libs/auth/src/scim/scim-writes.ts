import { CONFIG_CHANGED_CHANNEL } from '@warden/database';
import type { AuditEventInput, Queryable } from '@warden/common';

/** Who changed the directory: the SCIM token (per org) the request carried. */
export interface ScimActor {
  orgId: string;
  tokenId: string;
}

/**
 * A directory member's roles are the display names of their groups: written in the transaction of every change of
 * groups or memberships, so the approver check (which reads `org_members.roles`) sees the directory at once.
 */
export async function recomputeRoles(m: Queryable, orgId: string, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await m.query(
    `UPDATE org_members m SET roles = COALESCE((
         SELECT array_agg(DISTINCT g.display_name ORDER BY g.display_name)
           FROM scim_group_members gm JOIN scim_groups g ON g.id = gm.group_id
          WHERE g.org_id = m.org_id AND gm.user_id = m.user_id), '{}'), updated_at = now()
      WHERE m.org_id = $1 AND m.user_id = ANY($2::uuid[]) AND m.directory_managed`,
    [orgId, userIds],
  );
}

/** Tells every instance, at commit, that this org's directory changed (ProvisioningService drops its principals). */
export async function announce(m: Queryable, orgId: string): Promise<void> {
  await m.query(`SELECT pg_notify($1, $2)`, [CONFIG_CHANGED_CHANNEL, orgId]);
}

/** An audit event of a directory change (kind `identity`), chained in the change's transaction. */
export function scimEvent(
  actor: ScimActor,
  action: string,
  entity: { type: 'user' | 'group' | 'scim_token'; id: string },
  payload: Record<string, unknown>,
): AuditEventInput {
  return {
    orgId: actor.orgId,
    kind: 'identity',
    action,
    entityType: entity.type,
    entityId: entity.id,
    actor: `scim:${actor.tokenId}`,
    occurredAt: new Date(),
    payload,
  };
}
