import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { appendAuditEvents, type Queryable } from './audit-chain.js';
import type { AuditEventInput, ChainedAuditEvent } from './audit-event.js';
import { configDiff, type ConfigChange } from './config-diff.js';

/** What a configuration event is about (its `entity_type`; its action is `<entity type>.<change>`). */
export const CONFIG_ENTITY_TYPES = [
  'agent',
  'connector',
  'channel',
  'org',
  'org_hooks',
  'workflow',
  'identity',
  'mcp_server',
  'llm_credential',
  'scim_token',
] as const;
export type ConfigEntityType = (typeof CONFIG_ENTITY_TYPES)[number];

/** A create, update or delete of something an admin configures. */
export interface ConfigChangeInput {
  orgId: string;
  /** The user who made the change. */
  actor: string | null;
  entityType: ConfigEntityType;
  entityId: string;
  /**
   * `rolled_back`: a policy restored from an earlier version (agents, org hooks); `shadow_deployed` /
   * `shadow_discarded`: a candidate policy put beside the live one, or taken away (#34; a promotion is an update);
   * `tests_replaced`: the policy's test cases replaced (#34).
   */
  change: 'created' | 'updated' | 'deleted' | 'rolled_back' | 'shadow_deployed' | 'shadow_discarded' | 'tests_replaced';
  /** Secret-free views of the entity before and after (null when it did not exist). */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** Names of secrets whose value changed; their values are never recorded. */
  secretsChanged?: string[];
  /** The policy version in force after the change (agents and org hooks), and whether the change made it. */
  policyVersion?: PolicyVersionMark;
}

/** What a config event says about policy versions (recorded as `policy_version` in its payload). */
export interface PolicyVersionMark {
  version: number;
  created: boolean;
  rolled_back_to?: number;
  comment?: string | null;
  /** A save forced past failing policy tests (#34): the cases that failed. */
  tests_forced?: string[];
}

type AppendedListener = (events: ChainedAuditEvent[]) => void;

/**
 * The one way to add events to the tamper-evident audit trail (`audit_events`, hash-chained per org). Connector calls
 * come in batches from the AuditWriter, which appends in its own transaction; everything else comes through here.
 */
@Injectable()
export class AuditTrail {
  private readonly listeners: AppendedListener[] = [];

  constructor(private readonly dataSource: DataSource) {}

  /** Called after events are committed (e.g. the webhook sink forwards them). */
  onAppended(listener: AppendedListener): void {
    this.listeners.push(listener);
  }

  /** Appends inside the caller's transaction (`tx`), so the change and its record commit together; else in its own. */
  async record(events: AuditEventInput | AuditEventInput[], tx?: Queryable): Promise<void> {
    // Stored as jsonb and hashed as read back: what JSON cannot hold (undefined, Date objects) is normalised first.
    const list = (Array.isArray(events) ? events : [events]).map((e) => ({
      ...e,
      payload: JSON.parse(JSON.stringify(e.payload)) as Record<string, unknown>,
    }));
    const chained = tx
      ? await appendAuditEvents(tx, list)
      : await this.dataSource.transaction((m) => appendAuditEvents(m, list));
    if (!tx) this.appended(chained);
  }

  /** Tells listeners about events a transaction of someone else (the AuditWriter's) committed. */
  appended(events: ChainedAuditEvent[]): void {
    if (events.length > 0) for (const l of this.listeners) l(events);
  }

  /** Records a configuration change with its diff; secrets appear only as `secret_changed`. */
  async configChange(c: ConfigChangeInput, tx?: Queryable): Promise<void> {
    const changes: ConfigChange[] = [
      'updated',
      'rolled_back',
      'shadow_deployed',
      'shadow_discarded',
      'tests_replaced',
    ].includes(c.change)
      ? configDiff(c.before, c.after)
      : [];
    for (const name of c.secretsChanged ?? []) changes.push({ path: `secrets.${name}`, secret_changed: true });
    await this.record(
      {
        orgId: c.orgId,
        kind: 'config',
        action: `${c.entityType}.${c.change}`,
        entityType: c.entityType,
        entityId: c.entityId,
        actor: c.actor,
        occurredAt: new Date(),
        payload: {
          before: c.before,
          after: c.after,
          changes,
          ...(c.policyVersion ? { policy_version: c.policyVersion } : {}),
        },
      },
      tx,
    );
  }
}
