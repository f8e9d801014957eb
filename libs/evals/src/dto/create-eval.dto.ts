import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';

export class ExpectedToolCallDto {
  @ApiProperty({ description: 'Tool name, e.g. oa__purchase_pay' }) @IsString() @Length(1, 200) tool: string;
  @ApiPropertyOptional({
    description: 'The call passes when its args contain these (deeply)',
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject()
  args_subset?: Record<string, unknown>;
}

export class EvalCaseDto {
  @ApiProperty() @IsString() @Length(1, 20_000) input: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 2_000) expect_contains?: string;
  @ApiPropertyOptional({ type: [ExpectedToolCallDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => ExpectedToolCallDto)
  expect_tool_calls?: ExpectedToolCallDto[];
  @ApiPropertyOptional({
    description: '{ "<tool>": <response or list of successive responses> } for simulated calls',
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject()
  fixtures?: Record<string, unknown>;
}

export class CreateEvalDto {
  @ApiProperty() @IsUUID() agent_id: string;
  @ApiPropertyOptional({
    enum: ['live', 'simulated'],
    default: 'live',
    description: 'Connector reads run for real (live) or are simulated; writes are always simulated',
  })
  @IsOptional()
  @IsIn(['live', 'simulated'])
  reads?: 'live' | 'simulated';
  @ApiProperty({ type: [EvalCaseDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => EvalCaseDto)
  cases: EvalCaseDto[];
}

export class ListEvalsQuery {
  @ApiPropertyOptional({ description: "Only this agent's evals" })
  @IsOptional()
  @IsUUID('all', { message: 'agent_id must be a UUID' })
  agent_id?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, description: 'At most this many, newest first (default 50)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer between 1 and 200' })
  @Min(1, { message: 'limit must be an integer between 1 and 200' })
  @Max(200, { message: 'limit must be an integer between 1 and 200' })
  limit?: number;
}
