import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';

export const MAX_AUDIT_ROWS = 500;

export class ListConnectorCallsQuery {
  @ApiPropertyOptional({ description: 'Only calls made by this agent' })
  @IsOptional() @IsUUID('all', { message: 'agent_id must be a UUID' }) agent_id?: string;

  @ApiPropertyOptional({ description: 'Only calls made in this run' })
  @IsOptional() @IsUUID('all', { message: 'run_id must be a UUID' }) run_id?: string;

  @ApiPropertyOptional({ description: `Rows to return, newest first (1-${MAX_AUDIT_ROWS}, default 100)` })
  @IsOptional() @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' }) @Min(1, { message: 'limit must be at least 1' }) @Max(MAX_AUDIT_ROWS, { message: `limit must be at most ${MAX_AUDIT_ROWS}` })
  limit?: number;
}
