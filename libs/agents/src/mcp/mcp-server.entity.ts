import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';

/**
 * The schema of `mcp_servers` (an org's MCP server: URL, sealed headers, per-tool overrides), so the entities describe
 * every table. Rows are read and written with SQL by McpServersStore.
 */
@Entity('mcp_servers')
@Unique('mcp_servers_org_id_name_key', ['orgId', 'name'])
export class McpServerRow {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'mcp_servers_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('text') name: string;
  @Column('text') url: string;
  @Column('text') sealedHeaders: string;
  @Column('text', { array: true, default: () => "'{}'" }) headerKeys: string[];
  @Column('jsonb', { default: {} }) toolOverrides: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
