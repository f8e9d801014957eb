import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';

export class ListConversationsQuery {
  @ApiPropertyOptional({ description: 'only conversations with this agent' })
  @IsOptional()
  @IsUUID('all', { message: 'agent_id must be a UUID' })
  agent_id?: string;

  @ApiPropertyOptional({
    enum: ['mine', 'org'],
    description: "mine (default): the caller's own; org: everyone's in the org (admins only)",
  })
  @IsOptional()
  @IsIn(['mine', 'org'], { message: 'scope must be "mine" or "org"' })
  scope?: 'mine' | 'org';

  @ApiPropertyOptional({ type: Number, minimum: 1, maximum: 200 })
  @IsOptional()
  @Transform(({ value }) => (value === undefined || value === '' ? undefined : Number(value)))
  @IsInt({ message: 'limit must be an integer between 1 and 200' })
  @Min(1, { message: 'limit must be an integer between 1 and 200' })
  @Max(200, { message: 'limit must be an integer between 1 and 200' })
  limit?: number;
}
