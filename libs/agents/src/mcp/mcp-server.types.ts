/** An admin's settings for one tool of an MCP server; they win over the server's own annotations. */
export interface McpToolOverride {
  requires_confirmation?: boolean;
  /** CEL over `args`, as on connector actions. */
  requires_confirmation_when?: string;
  /** Forces the tool to count as a write (true) or a read (false), whatever its annotations say. */
  write?: boolean;
}

/** One registered MCP server of an org (headers decrypted only when a client connects). */
export interface McpServerRecord {
  id: string;
  orgId: string;
  name: string;
  url: string;
  sealedHeaders: string;
  headerKeys: string[];
  toolOverrides: Record<string, McpToolOverride>;
  createdAt: Date;
  updatedAt: Date;
}

/** A tool of an MCP server as the runtime sees it: `<server>__<tool>`, with its read/write and confirmation policy. */
export interface McpTool {
  /** The name offered to the model. */
  name: string;
  /** The tool's own name on its server. */
  tool: string;
  description: string;
  parameters: Record<string, unknown>;
  server: { id: string; name: string; url: string };
  write: boolean;
  requiresConfirmation: boolean;
  requiresConfirmationWhen: string | null;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean };
}
