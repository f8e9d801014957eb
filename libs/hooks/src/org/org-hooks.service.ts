import { Injectable, Optional } from '@nestjs/common';
import { AuditTrail, BadInputError, NotFoundError } from '@warden/common';
import { TransactionRunner } from '@warden/database';
import { AgentConfigLookup } from '../agent-config-lookup.js';
import { byRunOrder } from '../hook-catalog.js';
import { HookPoint } from '../hook.types.js';
import { HookResolver } from '../hook-resolver.js';
import { OrgHooksStore } from './org-hooks.store.js';
import { PolicyTestGate } from '../versions/policy-test-gate.js';
import { PolicyVersions, type PolicySubject, type VersionOrigin } from '../versions/policy-versions.js';

const POINT_ORDER = Object.values(HookPoint);
const subject = (orgId: string): PolicySubject => ({ orgId, type: 'org_hooks', id: orgId });

/** Why a save is made, and whether it goes ahead although the policy tests fail on it. */
export interface SaveOptions {
  comment?: string;
  force?: boolean;
}

/** Org-wide hooks: saved after the resolver accepts them; every agent of the org runs them with its own. */
@Injectable()
export class OrgHooksService {
  constructor(
    private readonly store: OrgHooksStore,
    private readonly resolver: HookResolver,
    private readonly lookup: AgentConfigLookup,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditTrail,
    private readonly versions: PolicyVersions,
    @Optional() private readonly tests?: PolicyTestGate,
  ) {}

  async get(orgId: string) {
    const found = await this.store.find(orgId);
    return {
      hooks: found?.hooks ?? {},
      updated_by: found?.updatedBy ?? null,
      updated_at: found?.updatedAt.toISOString() ?? null,
    };
  }

  /**
   * Saves the org's hooks as a new policy version (none when they did not change); 400 naming each problem, 409
   * naming the failing policy tests unless `force`.
   */
  async put(orgId: string, userId: string, hooks: Record<string, unknown>, opts: SaveOptions = {}) {
    return this.save(orgId, userId, hooks, { createdBy: userId, comment: opts.comment }, opts.force === true);
  }

  /** Puts back the hooks of `version` (checked again like a save); the rollback is itself a new version. */
  async rollback(orgId: string, userId: string, version: number, opts: SaveOptions = {}) {
    const target = await this.versions.get(subject(orgId), version).catch((err: unknown) => {
      if (err instanceof NotFoundError) throw new BadInputError(`version ${version} is not a version of the org hooks`);
      throw err;
    });
    const origin = { createdBy: userId, comment: opts.comment, rolledBackTo: version };
    return this.save(orgId, userId, target.config, origin, opts.force === true);
  }

  private async save(
    orgId: string,
    userId: string,
    hooks: Record<string, unknown>,
    checked: VersionOrigin,
    force: boolean,
  ) {
    const problems = await this.resolver.validateOrg(hooks);
    if (problems.length) throw new BadInputError(`the org hooks are invalid: ${problems.join('; ')}`, problems);
    const origin = { ...checked, testsForced: (await this.tests?.check(subject(orgId), hooks, force)) ?? [] };
    // The change, its version and its audit event (who, the diff of the hooks, the version) commit together.
    const saved = await this.tx.run(async ({ manager }) => {
      await this.versions.lock(subject(orgId), manager);
      const before = await this.store.current(orgId, manager);
      const row = await this.store.save(orgId, hooks, userId, manager);
      const policyVersion = await this.versions.record(subject(orgId), row.hooks, origin, manager);
      await this.audit.configChange(
        {
          orgId,
          actor: userId,
          entityType: 'org_hooks',
          entityId: orgId,
          change: origin.rolledBackTo === undefined ? 'updated' : 'rolled_back',
          before: { hooks: before ?? {} },
          after: { hooks: row.hooks },
          policyVersion,
        },
        manager,
      );
      return row;
    });
    this.store.forget(orgId);
    return { hooks: saved.hooks, updated_by: saved.updatedBy, updated_at: saved.updatedAt.toISOString() };
  }

  /** The chain a run of the agent would get now, in run order per point, each hook with its origin. */
  async effective(orgId: string, agentId: string) {
    const setup = await this.lookup.findHookSetup(orgId, agentId);
    if (!setup) throw new NotFoundError('agent', agentId);
    const chain = await this.resolver.chain({ hooksConfig: setup.hooksConfig, agent: { ...setup.agent, orgId } });
    const hooks = [...chain.hooks].sort(
      (a, b) => POINT_ORDER.indexOf(a.point) - POINT_ORDER.indexOf(b.point) || byRunOrder(a, b),
    );
    return {
      agent_id: agentId,
      hooks: hooks.map((h) => ({
        name: h.name,
        point: h.point,
        priority: h.priority,
        origin: h.origin,
        source: h.source,
        runs_last: h.runsLast ?? false,
      })),
      overridden: chain.overridden,
    };
  }
}
