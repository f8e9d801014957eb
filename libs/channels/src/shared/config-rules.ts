import { ConflictError } from '@warden/common';
import type { ChannelRecord } from '../channel.js';

/** How one config key of a channel type is checked on create/update. */
export interface ConfigKeyRule {
  key: string;
  kind: 'string' | 'url' | 'string_list' | 'integer';
  required: boolean;
  /** Write-only: encrypted at rest, never returned. */
  secret?: boolean;
  /** Extra shape check for strings, with the words that explain it. */
  pattern?: { test: RegExp; says: string };
}

/** Problems with `config` against `rules`, one sentence each naming the key; empty = fine. */
export function checkConfig(rules: readonly ConfigKeyRule[], config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const known = new Set(rules.map((r) => r.key));
  for (const key of Object.keys(config)) {
    if (!known.has(key)) problems.push(`config.${key} is not a known key (expected one of ${[...known].join(', ')})`);
  }
  for (const rule of rules) {
    const value = config[rule.key];
    if (value === undefined || value === null || value === '') {
      if (rule.required) problems.push(`config.${rule.key} is required`);
      continue;
    }
    const problem = checkValue(rule, value);
    if (problem) problems.push(`config.${rule.key} ${problem}`);
  }
  return problems;
}

function checkValue(rule: ConfigKeyRule, value: unknown): string | null {
  switch (rule.kind) {
    case 'string':
      if (typeof value !== 'string' || value.trim() === '') return 'must be a non-empty string';
      if (rule.pattern && !rule.pattern.test.test(value)) return `must be ${rule.pattern.says}`;
      return null;
    case 'url':
      if (typeof value !== 'string') return 'must be an http(s) URL';
      try {
        const u = new URL(value);
        return u.protocol === 'http:' || u.protocol === 'https:' ? null : 'must be an http(s) URL';
      } catch {
        return 'must be an http(s) URL';
      }
    case 'string_list':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && v.trim() !== '')
        ? null
        : 'must be a list of non-empty strings';
    case 'integer':
      return (typeof value === 'number' && Number.isInteger(value)) ||
        (typeof value === 'string' && /^\d+$/.test(value))
        ? null
        : 'must be an integer';
  }
}

export const secretKeysOf = (rules: readonly ConfigKeyRule[]): string[] =>
  rules.filter((r) => r.secret).map((r) => r.key);

/**
 * A required string of a stored channel config, as an implementation reads it. Configs are validated when saved,
 * but a row edited by hand or a lost secret must not go out as "undefined": the send (or callback) is refused,
 * naming the key.
 */
export function requiredConfig(channel: ChannelRecord, key: string): string {
  const value = channel.config[key];
  if (typeof value === 'string' && value.trim() !== '') return value;
  return missingConfig(channel, key);
}

/** Refuses the use of a channel whose stored config lacks (or garbles) a required key. */
export function missingConfig(channel: ChannelRecord, key: string): never {
  throw new ConflictError(
    `${channel.type} channel ${channel.id} cannot be used: its config.${key} is not set; ` +
      `set it again with PATCH /api/channels/${channel.id}`,
    { channel_id: channel.id, missing: key },
  );
}

/** An optional string of a stored channel config; an empty string counts as not set (the default applies). */
export function optionalConfig(channel: ChannelRecord, key: string): string | undefined {
  const value = channel.config[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
