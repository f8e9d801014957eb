import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { BadInputError, EXPORT_CONTENT_TYPES, writeExport, type ExportFormat } from '@warden/common';
import type { Response } from 'express';
import { CONNECTOR_CALL_COLUMNS, ConnectorCallQuery, type ConnectorCallFilters } from './connector-call-query.js';
import { ConnectorCallResponse } from './dto/connector-call.response.js';
import {
  ExportFormatQuery,
  ListConnectorCallsQuery,
  type AuditRangeQuery,
  type ConnectorCallFilterQuery,
} from './dto/list-connector-calls.dto.js';

/** A query's from/to as dates; from must come before to. */
export function parseRange(q: AuditRangeQuery): { from?: Date; to?: Date } {
  const from = q.from ? new Date(q.from) : undefined;
  const to = q.to ? new Date(q.to) : undefined;
  if (from && to && from >= to) throw new BadInputError('from must be before to');
  return { from, to };
}

function filters(orgId: string, q: ConnectorCallFilterQuery): ConnectorCallFilters {
  return {
    orgId,
    agentId: q.agent_id,
    runId: q.run_id,
    userId: q.user_id,
    tool: q.tool,
    surface: q.surface,
    outcome: q.outcome,
    ...parseRange(q),
  };
}

/** Sends an export as a download, streamed page by page. */
export async function sendExport<T extends object>(
  res: Response,
  format: ExportFormat,
  name: string,
  columns: string[],
  pages: AsyncIterable<T[]>,
): Promise<void> {
  res.status(200);
  res.setHeader('content-type', EXPORT_CONTENT_TYPES[format]);
  res.setHeader('content-disposition', `attachment; filename="${name}.${format}"`);
  res.setHeader('cache-control', 'no-store');
  await writeExport(res, format, columns, pages);
}

/** The org's connector call log (admins only: rows name users and, when stored, args). */
@ApiTags('audit')
@ApiBearerAuth()
@Roles('admin')
@Controller('audit')
export class AuditController {
  constructor(private readonly calls: ConnectorCallQuery) {}

  /**
   * Newest first, filtered, a page at a time: the `x-next-cursor` response header is the `cursor` of the next page.
   * With `format=csv|jsonl` (or `Accept: text/csv`) the whole filtered log streams instead, as /export does.
   */
  @Get('connector-calls')
  @ApiOkResponse({
    type: [ConnectorCallResponse],
    headers: { 'x-next-cursor': { description: 'cursor of the next page (absent on the last)' } },
  })
  async connectorCalls(
    @CurrentPrincipal() p: Principal,
    @Query() q: ListConnectorCallsQuery,
    @Res() res: Response,
  ): Promise<void> {
    const format = q.format ?? (res.req.headers.accept?.includes('text/csv') ? 'csv' : undefined);
    if (format)
      return sendExport(res, format, 'connector-calls', CONNECTOR_CALL_COLUMNS, this.calls.pages(filters(p.orgId, q)));
    const page = await this.calls.page(filters(p.orgId, q), q.limit ?? 100, q.cursor);
    if (page.next_cursor) res.setHeader('x-next-cursor', page.next_cursor);
    res.json(page.items satisfies Array<Partial<ConnectorCallResponse>>);
  }

  /** The whole filtered log, oldest first, as CSV (default) or JSON Lines, streamed with constant memory. */
  @Get('connector-calls/export')
  @ApiProduces('text/csv', 'application/x-ndjson')
  @ApiOkResponse({
    description: 'CSV (header line first) or JSON Lines, one connector call per line',
    schema: { type: 'string' },
  })
  async exportConnectorCalls(
    @CurrentPrincipal() p: Principal,
    @Query() q: ExportFormatQuery,
    @Res() res: Response,
  ): Promise<void> {
    await sendExport(
      res,
      q.format ?? 'csv',
      'connector-calls',
      CONNECTOR_CALL_COLUMNS,
      this.calls.pages(filters(p.orgId, q)),
    );
  }
}
