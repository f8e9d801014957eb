import { Injectable } from '@nestjs/common';
import type { Queryable } from '@warden/common';
import { DataSource } from 'typeorm';
import type { McpServerRecord, McpToolOverride } from './mcp-server.types.js';

interface Row {
  id: string;
  org_id: string;
  name: string;
  url: string;
  sealed_headers: string;
  header_keys: string[];
  tool_overrides: Record<string, McpToolOverride>;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (r: Row): McpServerRecord => ({
  id: r.id,
  orgId: r.org_id,
  name: r.name,
  url: r.url,
  sealedHeaders: r.sealed_headers,
  headerKeys: r.header_keys,
  toolOverrides: r.tool_overrides,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export type McpServerWrite = Pick<McpServerRecord, 'name' | 'url' | 'sealedHeaders' | 'headerKeys' | 'toolOverrides'>;

/** The `mcp_servers` table. Writes take the caller's transaction (`tx`), where the change's audit event is written. */
@Injectable()
export class McpServersStore {
  constructor(private readonly dataSource: DataSource) {}

  async list(orgId: string): Promise<McpServerRecord[]> {
    const rows: Row[] = await this.dataSource.query(`SELECT * FROM mcp_servers WHERE org_id = $1 ORDER BY name`, [
      orgId,
    ]);
    return rows.map(toRecord);
  }

  async find(orgId: string, id: string): Promise<McpServerRecord | null> {
    const [row] = await this.dataSource.query<Array<Row | undefined>>(
      `SELECT * FROM mcp_servers WHERE org_id = $1 AND id = $2`,
      [orgId, id],
    );
    return row ? toRecord(row) : null;
  }

  /** Null when the org already has a server of that name. */
  async insert(orgId: string, w: McpServerWrite, tx: Queryable = this.dataSource): Promise<McpServerRecord | null> {
    const [row] = await tx.query<Array<Row | undefined>>(
      `INSERT INTO mcp_servers (org_id, name, url, sealed_headers, header_keys, tool_overrides)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (org_id, name) DO NOTHING RETURNING *`,
      [orgId, w.name, w.url, w.sealedHeaders, w.headerKeys, JSON.stringify(w.toolOverrides)],
    );
    return row ? toRecord(row) : null;
  }

  async update(
    orgId: string,
    id: string,
    w: McpServerWrite,
    tx: Queryable = this.dataSource,
  ): Promise<McpServerRecord | null> {
    const [rows]: [Row[], number] = await tx.query(
      `UPDATE mcp_servers SET name = $3, url = $4, sealed_headers = $5, header_keys = $6, tool_overrides = $7,
              updated_at = clock_timestamp()
       WHERE org_id = $1 AND id = $2 RETURNING *`,
      [orgId, id, w.name, w.url, w.sealedHeaders, w.headerKeys, JSON.stringify(w.toolOverrides)],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** The removed server, or null when there was none. */
  async remove(orgId: string, id: string, tx: Queryable = this.dataSource): Promise<McpServerRecord | null> {
    const [rows]: [Row[], number] = await tx.query(
      `DELETE FROM mcp_servers WHERE org_id = $1 AND id = $2 RETURNING *`,
      [orgId, id],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }
}
