import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  Allow,
  IsIn,
  IsInt,
  IsObject,
  ValidateNested,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
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

export class StandingGrantBody {
  @ApiProperty({ description: 'CEL over args that later calls must satisfy, e.g. args.amount <= 70000' })
  @IsString({ message: 'standing.when must be a CEL expression' })
  @MaxLength(500, { message: 'standing.when must be at most 500 characters' })
  when!: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 1000,
    description: 'at most this many calls, the approved one included (default 10)',
  })
  @IsOptional()
  @IsInt({ message: 'standing.max_calls must be an integer between 1 and 1000' })
  @Min(1, { message: 'standing.max_calls must be an integer between 1 and 1000' })
  @Max(1000, { message: 'standing.max_calls must be an integer between 1 and 1000' })
  max_calls?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 1440, description: 'for at most this many minutes (default 60)' })
  @IsOptional()
  @IsInt({ message: 'standing.minutes must be an integer between 1 and 1440' })
  @Min(1, { message: 'standing.minutes must be an integer between 1 and 1440' })
  @Max(1440, { message: 'standing.minutes must be an integer between 1 and 1440' })
  minutes?: number;
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

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: "approve only: the edited args the call runs with (validated against the action's parameter schema)",
  })
  @IsOptional()
  @IsObject({ message: 'args must be a JSON object' })
  args?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'approve a question (ask_human, HUMAN node) with the answer; ' +
      'validated against its form (args_schema.properties.answer)',
  })
  @IsOptional()
  @Allow()
  answer?: unknown;

  @ApiPropertyOptional({
    type: StandingGrantBody,
    description: 'approve only: also approve later calls of this tool in this run within the bound',
  })
  @IsOptional()
  @IsObject({ message: 'standing must be an object { when, max_calls?, minutes? }' })
  @ValidateNested()
  @Type(() => StandingGrantBody)
  standing?: StandingGrantBody;
}

export class ReassignBody {
  @ApiProperty({ description: 'sub of the user who decides from now on' })
  @IsString({ message: 'to must be the sub of a user of the organisation' })
  @MaxLength(200, { message: 'to must be at most 200 characters' })
  to!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: 'reason must be a string' })
  @MaxLength(2000, { message: 'reason must be at most 2000 characters' })
  reason?: string;
}
