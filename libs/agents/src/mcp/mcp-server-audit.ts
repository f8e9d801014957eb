import { changedSecrets, type ConfigChangeInput, type SecretBox } from '@warden/common';
import type { McpServerRecord } from './mcp-server.types.js';

/** An MCP server as its configuration audit records it: header names, never their values (they hold tokens). */
export function auditedMcpServer(s: McpServerRecord): Record<string, unknown> {
  return { name: s.name, url: s.url, header_keys: s.headerKeys, tool_overrides: s.toolOverrides };
}

/**
 * The audit event of a create, update or delete (null for a side that does not exist): the diff of the settings
 * (tool overrides that add or remove approvals included), and which headers changed, as `secret_changed` only.
 */
export function mcpServerChange(
  box: SecretBox,
  c: { orgId: string; actor: string | null; before: McpServerRecord | null; after: McpServerRecord | null },
): ConfigChangeInput {
  const headers = (s: McpServerRecord | null) => (s ? box.open(s.sealedHeaders) : {});
  const subject = c.after ?? c.before;
  // A create or update names a side that exists: the record written or removed.
  if (!subject) throw new Error('an MCP server change needs the server before or after it');
  return {
    orgId: c.orgId,
    actor: c.actor,
    entityType: 'mcp_server',
    entityId: subject.id,
    change: !c.before ? 'created' : !c.after ? 'deleted' : 'updated',
    before: c.before && auditedMcpServer(c.before),
    after: c.after && auditedMcpServer(c.after),
    secretsChanged: c.after ? changedSecrets(headers(c.before), headers(c.after)).map((k) => `headers.${k}`) : [],
  };
}
