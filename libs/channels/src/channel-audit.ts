import type { ChannelView } from './channel-configs.js';

/** A channel as its configuration audit records it: settings and which secrets are set, never their values. */
export function auditedChannel(v: ChannelView): Record<string, unknown> {
  return { type: v.type, name: v.name, config: v.config, secrets_set: v.secrets_set, is_default: v.is_default };
}

/** Names of the secrets whose value differs (added, removed or replaced); the values themselves go nowhere. */
export function changedSecrets(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]).sort();
}
