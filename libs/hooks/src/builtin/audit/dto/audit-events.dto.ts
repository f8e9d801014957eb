import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { CONFIG_ENTITY_TYPES } from '@warden/common';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { AuditRangeQuery, MAX_AUDIT_ROWS } from './list-connector-calls.dto.js';

const KINDS = ['connector_call', 'config', 'confirmation', 'identity'] as const;
const ENTITY_TYPES = [...CONFIG_ENTITY_TYPES, 'run', 'confirmation'] as const;

export class AuditEventFilterQuery extends AuditRangeQuery {
  @ApiPropertyOptional({
    description: 'e.g. agent.updated, channel.deleted, connector_call.blocked, confirmation.approved',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  action?: string;

  @ApiPropertyOptional({ enum: ENTITY_TYPES })
  @IsOptional()
  @IsIn(ENTITY_TYPES, { message: `entity_type must be one of ${ENTITY_TYPES.join(', ')}` })
  entity_type?: string;

  @ApiPropertyOptional({ description: 'The id of the agent, connector, channel ... the event is about' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  entity_id?: string;

  @ApiPropertyOptional({ description: 'The user id who caused the event' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  actor?: string;

  @ApiPropertyOptional({
    description: 'Only events about this agent: its calls and approval requests, its config changes',
  })
  @IsOptional()
  @IsUUID('all', { message: 'agent_id must be a UUID' })
  agent_id?: string;

  @ApiPropertyOptional({ description: `Events to return, newest first (1-${MAX_AUDIT_ROWS}, default 100)` })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be at least 1' })
  @Max(MAX_AUDIT_ROWS, { message: `limit must be at most ${MAX_AUDIT_ROWS}` })
  limit?: number;

  @ApiPropertyOptional({ description: 'next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export class ListAuditEventsQuery extends AuditEventFilterQuery {
  @ApiPropertyOptional({ enum: KINDS })
  @IsOptional()
  @IsIn(KINDS, { message: `kind must be one of ${KINDS.join(', ')}` })
  kind?: (typeof KINDS)[number];

  @ApiPropertyOptional({ enum: ['csv', 'jsonl'], description: 'Only for /export (default jsonl)' })
  @IsOptional()
  @IsIn(['csv', 'jsonl'], { message: 'format must be csv or jsonl' })
  format?: 'csv' | 'jsonl';
}
