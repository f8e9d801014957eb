import { Injectable } from '@nestjs/common';
import { BadInputError, canonicalJson, NotFoundError, type PolicyVersionMark, type Queryable } from '@warden/common';
import { DataSource } from 'typeorm';
import { OrgHooksStore } from '../org/org-hooks.store.js';
import { policyDiff, type PolicyChange } from './policy-diff.js';
import type { PolicySubjectType } from './policy-version.entity.js';

/** Whose policy: an agent (its id) or an org's hooks (the org's id). */
export interface PolicySubject {
  orgId: string;
  type: PolicySubjectType;
  id: string;
}

export interface PolicyVersionSummary {
  version: number;
  created_at: Date;
  created_by: string | null;
  comment: string | null;
  rolled_back_to: number | null;
  /** Saved with `force: true` although these policy test cases failed (null: the tests passed, or there were none). */
  tests_forced: string[] | null;
  /** Every version is live for now (shadow deployment comes with #34's shadow mode). */
  mode: 'live';
}

export interface PolicyVersionView extends PolicyVersionSummary {
  /** The versioned config: an agent's `{ hooks?, confirmation?, require_confirmation_for_all? }`, or an org's hooks. */
  config: Record<string, unknown>;
}

/** How a version comes about: who, why, and (for a rollback) which version it restores. */
export interface VersionOrigin {
  createdBy: string | null;
  comment?: string | null;
  rolledBackTo?: number;
  /** The failing policy test cases a forced save overrode. */
  testsForced?: string[];
}

interface Row {
  version: number;
  config: Record<string, unknown>;
  created_by: string | null;
  comment: string | null;
  rolled_back_to: number | null;
  tests_forced: string[] | null;
  created_at: Date;
}

const COLUMNS = 'version, config, created_by, comment, rolled_back_to, tests_forced, created_at';
const WHERE_SUBJECT = 'org_id = $1 AND subject_type = $2 AND subject_id = $3';

/**
 * The `policy_versions` table: immutable, numbered versions of agents' policies and orgs' hooks. A version is only
 * written by `record`, inside the transaction of the change it records (so there is no change without a version
 * and no version without a change); `lock` first serializes the changes of one subject, so concurrent saves get
 * consecutive numbers in commit order (the primary key refuses a duplicate number should anyone skip the lock).
 */
@Injectable()
export class PolicyVersions {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orgHooks: OrgHooksStore,
  ) {}

  /** Takes the subject's change lock until `tx` ends: call it before writing the subject. */
  async lock(s: PolicySubject, tx: Queryable): Promise<void> {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('policy_versions:' || $1 || ':' || $2, 0))`, [
      s.type,
      s.id,
    ]);
  }

  /**
   * Records `config` as the subject's next version — unless it equals the latest one and this is not a rollback
   * (saving an agent's name changes no policy) — and says which version is in force. Inside `tx`, after `lock`.
   */
  async record(
    s: PolicySubject,
    config: Record<string, unknown>,
    origin: VersionOrigin,
    tx: Queryable,
  ): Promise<PolicyVersionMark> {
    const [latest] = await tx.query<[Row?]>(
      `SELECT ${COLUMNS} FROM policy_versions WHERE ${WHERE_SUBJECT} ORDER BY version DESC LIMIT 1`,
      [s.orgId, s.type, s.id],
    );
    const forced = origin.testsForced?.length ? origin.testsForced : null;
    if (
      latest &&
      origin.rolledBackTo === undefined &&
      !forced &&
      canonicalJson(latest.config) === canonicalJson(config)
    ) {
      return { version: latest.version, created: false };
    }
    const version = (latest?.version ?? 0) + 1;
    await tx.query(
      `INSERT INTO policy_versions (subject_type, subject_id, version, org_id, config, created_by, comment,
                                   rolled_back_to, tests_forced)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        s.type,
        s.id,
        version,
        s.orgId,
        JSON.stringify(config),
        origin.createdBy,
        origin.comment ?? null,
        origin.rolledBackTo ?? null,
        forced,
      ],
    );
    return {
      version,
      created: true,
      ...(origin.rolledBackTo !== undefined ? { rolled_back_to: origin.rolledBackTo } : {}),
      ...(origin.comment ? { comment: origin.comment } : {}),
      ...(forced ? { tests_forced: forced } : {}),
    };
  }

  /** The subject's versions, oldest first. */
  async list(s: PolicySubject): Promise<PolicyVersionSummary[]> {
    const rows = await this.dataSource.query<Row[]>(
      `SELECT ${COLUMNS} FROM policy_versions WHERE ${WHERE_SUBJECT} ORDER BY version`,
      [s.orgId, s.type, s.id],
    );
    return rows.map((r) => summary(r));
  }

  /** Version `n` of the subject; 404 naming it when there is none. Routes show `config` as the subject names it. */
  async get(s: PolicySubject, n: number, tx: Queryable = this.dataSource): Promise<PolicyVersionView> {
    const [row] = await tx.query<[Row?]>(
      `SELECT ${COLUMNS} FROM policy_versions WHERE ${WHERE_SUBJECT} AND version = $4`,
      [s.orgId, s.type, s.id, n],
    );
    if (!row) throw new NotFoundError(`${s.type === 'agent' ? 'policy' : 'org hooks'} version`, String(n));
    return { ...summary(row), config: row.config };
  }

  /** What changed from version `from` to version `to`, as JSON-pointer changes of the config. */
  async diff(
    s: PolicySubject,
    from: number,
    to: number,
  ): Promise<{ from: number; to: number; changes: PolicyChange[] }> {
    const [a, b] = await Promise.all([this.get(s, from), this.get(s, to)]);
    return { from, to, changes: policyDiff(a.config, b.config) };
  }

  /** The latest version number of the subject (null when it has none), read inside `tx` when given. */
  async latest(s: PolicySubject, tx: Queryable = this.dataSource): Promise<number | null> {
    const [row] = await tx.query<[{ version: number | null }?]>(
      `SELECT max(version) AS version FROM policy_versions WHERE ${WHERE_SUBJECT}`,
      [s.orgId, s.type, s.id],
    );
    return row?.version ?? null;
  }

  /** The version of the org's hooks runs get now (as cached with them), or null when the org has none. */
  async orgHooksVersion(orgId: string): Promise<number | null> {
    return (await this.orgHooks.find(orgId))?.version ?? null;
  }
}

/** A version as its routes show it: `config` under the subject's own name (`model_config_json`, `hooks`). */
export function versionAs<K extends string>(
  view: PolicyVersionView,
  key: K,
): PolicyVersionSummary & Record<K, Record<string, unknown>> {
  const { config, ...rest } = view;
  return { ...rest, [key]: config } as PolicyVersionSummary & Record<K, Record<string, unknown>>;
}

/** A version number from a path or query parameter: a positive integer, else 400 naming the parameter. */
export function versionParam(raw: string | undefined, name: string): number {
  if (raw === undefined || !/^[1-9][0-9]{0,8}$/.test(raw)) {
    throw new BadInputError(
      `${name} must be a version number (a positive integer), ` +
        `got ${raw === undefined ? 'nothing' : JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}

function summary(r: Row): PolicyVersionSummary {
  return {
    version: r.version,
    created_at: r.created_at,
    created_by: r.created_by,
    comment: r.comment,
    rolled_back_to: r.rolled_back_to,
    tests_forced: r.tests_forced,
    mode: 'live',
  };
}
