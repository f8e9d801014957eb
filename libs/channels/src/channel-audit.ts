import type { ChannelView } from './channel-configs.js';

/** Which secrets changed is shared by every config audit (connectors, MCP servers, channels). */
export { changedSecrets } from '@warden/common';

/** A channel as its configuration audit records it: settings and which secrets are set, never their values. */
export function auditedChannel(v: ChannelView): Record<string, unknown> {
  return { type: v.type, name: v.name, config: v.config, secrets_set: v.secrets_set, is_default: v.is_default };
}
