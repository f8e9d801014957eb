import { Injectable } from '@nestjs/common';
import { AppConfig, BadInputError, EgressPolicy, SecretBox } from '@warden/common';
import type { Channel, ChannelRecord, ChannelType } from './channel.js';
import type { ChannelEntity } from './channel.entity.js';
import { ChannelRegistry } from './channel-registry.js';

/** A channel as the API shows it: no secret values, only which secrets are set. */
export interface ChannelView {
  id: string;
  type: ChannelType;
  name: string;
  config: Record<string, unknown>;
  secrets_set: string[];
  is_default: boolean;
  callback_url: string;
  created_at: string;
  updated_at: string;
}

/** Keys that say where a channel's secrets are sent. */
const REBIND_KEYS = ['base_url', 'app_id', 'corp_id'];

/**
 * A channel's config as it is checked, stored and shown: validated by its implementation, its secrets sealed apart
 * from the plain keys (write-only: a view names only which are set), opened only for the implementations.
 */
@Injectable()
export class ChannelConfigs {
  constructor(
    private readonly registry: ChannelRegistry,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
    private readonly egress: EgressPolicy,
  ) {}

  validate(impl: Channel, config: Record<string, unknown>): void {
    const problems = impl.validateConfig(config);
    if (problems.length)
      throw new BadInputError(`invalid ${impl.type} channel config: ${problems.join('; ')}`, problems);
  }

  /** An internal base_url is refused when saved, not only when dialled (egress.ts). */
  async checkEgress(impl: Channel, config: Record<string, unknown>): Promise<void> {
    if (config.base_url === undefined) return;
    const problem = await this.egress.savedUrlProblem('config.base_url', config.base_url);
    if (problem) throw new BadInputError(`invalid ${impl.type} channel config: ${problem}`, [problem]);
  }

  /**
   * Stored secrets belong to one destination: when base_url or the app/corp id changes, every stored secret must be
   * given again, or the next send (or /test) would hand the old app's secret to the new address.
   */
  requireSecretsOnRebind(impl: Channel, row: ChannelEntity, change: Record<string, unknown>): void {
    const rebound = REBIND_KEYS.filter((k) => k in change && change[k] !== (row.config[k] ?? undefined));
    if (rebound.length === 0 || !row.secretsEnc) return;
    const missing = Object.keys(this.secrets.open(row.secretsEnc)).filter(
      (k) => impl.secretKeys.includes(k) && (change[k] === undefined || change[k] === null),
    );
    if (missing.length === 0) return;
    const secrets = missing.sort().join(', ');
    const problem = `changing ${rebound.join(', ')} requires re-entering the stored secrets: ${secrets}`;
    throw new BadInputError(`invalid ${impl.type} channel config: ${problem}`, [problem]);
  }

  /** The config as stored: plain keys as they are, the implementation's secret keys sealed (null when none). */
  seal(impl: Channel, config: Record<string, unknown>): { config: Record<string, unknown>; secretsEnc: string | null } {
    const plain: Record<string, unknown> = {};
    const secret: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(config)) (impl.secretKeys.includes(k) ? secret : plain)[k] = v;
    return { config: plain, secretsEnc: Object.keys(secret).length ? this.secrets.seal(secret) : null };
  }

  secretsOf(row: ChannelEntity): Record<string, unknown> {
    return row.secretsEnc ? this.secrets.open(row.secretsEnc) : {};
  }

  decrypted(row: ChannelEntity): Record<string, unknown> {
    return { ...row.config, ...this.secretsOf(row) };
  }

  toRecord(row: ChannelEntity): ChannelRecord {
    return { id: row.id, orgId: row.orgId, type: row.type, name: row.name, config: this.decrypted(row) };
  }

  view(row: ChannelEntity, defaultChannelId: string | null): ChannelView {
    const secretKeys = this.registry.get(row.type).secretKeys;
    return {
      id: row.id,
      type: row.type,
      name: row.name,
      config: Object.fromEntries(Object.entries(row.config).filter(([k]) => !secretKeys.includes(k))),
      secrets_set: Object.keys(this.secretsOf(row)).sort(),
      is_default: defaultChannelId === row.id,
      callback_url: `${this.config.publicUrl}/api/channels/${row.id}/callback`,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    };
  }
}
