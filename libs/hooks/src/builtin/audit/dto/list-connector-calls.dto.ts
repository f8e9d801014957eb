import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';

export const MAX_AUDIT_ROWS = 500;
const OUTCOMES = ['blocked', 'failed', 'succeeded', 'in_flight', 'interrupted'] as const;

/** Time range shared by every audit read. */
export class AuditRangeQuery {
  @ApiPropertyOptional({ description: 'Only rows at or after this time (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 timestamp, e.g. 2026-12-01T00:00:00Z' })
  from?: string;

  @ApiPropertyOptional({ description: 'Only rows before this time (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 timestamp, e.g. 2026-12-01T00:00:00Z' })
  to?: string;
}

/** Filters of the connector call log, for pages and exports alike. */
export class ConnectorCallFilterQuery extends AuditRangeQuery {
  @ApiPropertyOptional({ description: 'Only calls made by this agent' })
  @IsOptional()
  @IsUUID('all', { message: 'agent_id must be a UUID' })
  agent_id?: string;

  @ApiPropertyOptional({ description: 'Only calls made in this run' })
  @IsOptional()
  @IsUUID('all', { message: 'run_id must be a UUID' })
  run_id?: string;

  @ApiPropertyOptional({ description: 'Only calls made for this user (user id)' })
  @IsOptional()
  @IsUUID('all', { message: 'user_id must be a UUID' })
  user_id?: string;

  @ApiPropertyOptional({ description: 'Only calls of this tool, e.g. oa__purchase_pay' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  tool?: string;

  @ApiPropertyOptional({ description: 'Only calls from this surface (chat, api, dag, delegate, workflow, eval)' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  surface?: string;

  @ApiPropertyOptional({ enum: OUTCOMES, description: 'Only calls with this outcome' })
  @IsOptional()
  @IsIn(OUTCOMES, { message: `outcome must be one of ${OUTCOMES.join(', ')}` })
  outcome?: (typeof OUTCOMES)[number];
}

export class ExportFormatQuery extends ConnectorCallFilterQuery {
  @ApiPropertyOptional({ enum: ['csv', 'jsonl'], description: 'Export format (default csv)' })
  @IsOptional()
  @IsIn(['csv', 'jsonl'], { message: 'format must be csv or jsonl' })
  format?: 'csv' | 'jsonl';
}

export class ListConnectorCallsQuery extends ExportFormatQuery {
  @ApiPropertyOptional({ description: `Rows to return, newest first (1-${MAX_AUDIT_ROWS}, default 100)` })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be at least 1' })
  @Max(MAX_AUDIT_ROWS, { message: `limit must be at most ${MAX_AUDIT_ROWS}` })
  limit?: number;

  @ApiPropertyOptional({ description: 'The x-next-cursor header of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}
