import { appendAuditEvents, type Queryable } from '@warden/common';

export interface IdentityChange {
  orgId: string;
  userId: string;
  platform: string;
  externalId: string | null;
  previousExternalId: string | null;
  action: 'link' | 'relink' | 'unlink';
  method: string;
  byUserId: string | null;
}

/**
 * Records a link, relink or unlink of a chat identity in `identity_audit` and in the org's hash-chained audit trail.
 * `tx` is the transaction that makes the change, so the change and both records commit together.
 */
export async function recordIdentityChange(tx: Queryable, c: IdentityChange): Promise<void> {
  await tx.query(
    `INSERT INTO identity_audit
       (org_id, user_id, platform, external_id, previous_external_id, action, method, by_user_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [c.orgId, c.userId, c.platform, c.externalId, c.previousExternalId, c.action, c.method, c.byUserId],
  );
  await appendAuditEvents(tx, [
    {
      orgId: c.orgId,
      kind: 'identity',
      action: `identity.${c.action}`,
      entityType: 'identity',
      entityId: c.userId,
      actor: c.byUserId,
      occurredAt: new Date(),
      payload: {
        user_id: c.userId,
        platform: c.platform,
        external_id: c.externalId,
        previous_external_id: c.previousExternalId,
        method: c.method,
        // The same diff shape as configuration events: one changed link, before and after.
        changes: [{ path: `identities.${c.platform}`, before: c.previousExternalId, after: c.externalId }],
      },
    },
  ]);
}
