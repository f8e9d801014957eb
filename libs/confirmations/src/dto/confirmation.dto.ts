import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { CONFIRMATION_STATUSES, type ConfirmationStatus } from '../confirmation.types.js';

export class ListConfirmationsQuery {
  @ApiPropertyOptional({ enum: CONFIRMATION_STATUSES })
  @IsOptional()
  @IsIn(CONFIRMATION_STATUSES, { message: `status must be one of ${CONFIRMATION_STATUSES.join(', ')}` })
  status?: ConfirmationStatus;

  @ApiPropertyOptional({ type: Number, minimum: 1, maximum: 500 })
  @IsOptional()
  @Transform(({ value }) => (value === undefined || value === '' ? undefined : Number(value)))
  @IsInt({ message: 'limit must be an integer between 1 and 500' })
  @Min(1, { message: 'limit must be an integer between 1 and 500' })
  @Max(500, { message: 'limit must be an integer between 1 and 500' })
  limit?: number;
}

export class DecisionBody {
  @ApiProperty({ enum: ['approve', 'reject'] })
  @IsIn(['approve', 'reject'], { message: 'decision must be "approve" or "reject"' })
  decision!: 'approve' | 'reject';

  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: 'reason must be a string' })
  @MaxLength(2000, { message: 'reason must be at most 2000 characters' })
  reason?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'approve only: the edited args the call runs with (validated against the action\'s parameter schema)' })
  @IsOptional()
  @IsObject({ message: 'args must be a JSON object' })
  args?: Record<string, unknown>;
}
