import { Injectable } from '@nestjs/common';
import { ConflictError } from '@warden/common';
import { DataSource } from 'typeorm';
import { toolNameOf } from '../connectors/tool-name.js';

export type ToolOwnerKind = 'connector' | 'mcp_server';

const OWNER_LABEL: Record<ToolOwnerKind, string> = { connector: 'connector', mcp_server: 'MCP server' };

/** The prefix `<name>__` of an owner's tools, without its `__` (the table's key). */
const prefixOf = (name: string) => toolNameOf(name, '').slice(0, -2);

/** The unique keys a save under a taken name runs into: the namespace's, or its own table's on the exact name. */
const NAME_KEYS = ['tool_namespaces_pkey', 'connectors_org_name_uq', 'mcp_servers_org_id_name_key'];

const isNamespaceClash = (err: unknown): boolean => {
  const driver =
    (err as { driverError?: { code?: unknown; constraint?: unknown } }).driverError ?? (err as Record<string, unknown>);
  return driver.code === '23505' && NAME_KEYS.includes(driver.constraint as string);
};

/**
 * The `tool_namespaces` table: which connector or MCP server owns each tool-name prefix of an org. Its rows follow
 * `connectors` and `mcp_servers` through triggers (migration ToolNamespaces1766200002000); this class reads it to
 * refuse a taken name early, and turns the primary key's refusal (two saves racing for one name) into the same 409.
 */
@Injectable()
export class ToolNamespaces {
  constructor(private readonly dataSource: DataSource) {}

  /** 409 when another owner (not `exceptId`) holds the prefix `name` would write its tools under. */
  async assertFree(orgId: string, name: string, exceptId?: string): Promise<void> {
    const clash = await this.clashOf(orgId, name, exceptId);
    if (clash) throw clash;
  }

  /**
   * What a failed save should throw: the 409 naming the name when the namespace's key refused it (the owner read
   * after the rollback), else `err` itself.
   */
  async refusal(err: unknown, orgId: string, name: string, exceptId?: string): Promise<unknown> {
    if (!isNamespaceClash(err)) return err;
    return (await this.clashOf(orgId, name, exceptId)) ?? conflict(name, null);
  }

  private async clashOf(orgId: string, name: string, exceptId?: string): Promise<ConflictError | undefined> {
    const [owner] = await this.dataSource.query<
      Array<{ owner_kind: ToolOwnerKind; owner_id: string; owner_name: string } | undefined>
    >(`SELECT owner_kind, owner_id, owner_name FROM tool_namespaces WHERE org_id = $1 AND name = $2`, [
      orgId,
      prefixOf(name),
    ]);
    if (!owner || owner.owner_id === exceptId) return undefined;
    return conflict(name, owner);
  }
}

function conflict(name: string, owner: { owner_kind: ToolOwnerKind; owner_name: string } | null): ConflictError {
  const holder = owner
    ? `the ${OWNER_LABEL[owner.owner_kind]} "${owner.owner_name}"`
    : 'another connector or MCP server';
  return new ConflictError(
    `the name "${name}" is taken: ${holder} already names tools "${prefixOf(name)}__*" ` +
      '(connectors and MCP servers share tool names)',
  );
}
