import { Check, Column, Entity, ForeignKey, PrimaryColumn, Unique } from 'typeorm';

/**
 * One row per tool-name prefix in an org (`<owner>__<tool>`): whichever connector or MCP server owns it. Written only
 * by the triggers of migration ToolNamespaces1766200002000 (in the writer's transaction); read by ToolNamespaces.
 */
@Entity('tool_namespaces')
@Unique('tool_namespaces_owner_uq', ['ownerKind', 'ownerId'])
@Check('tool_namespaces_owner_kind_check', "owner_kind IN ('connector', 'mcp_server')")
export class ToolNamespace {
  @ForeignKey('orgs', { name: 'tool_namespaces_org_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  orgId: string;
  @PrimaryColumn('text') name: string;
  @Column('text') ownerKind: 'connector' | 'mcp_server';
  @Column('uuid') ownerId: string;
  @Column('text') ownerName: string;
}
