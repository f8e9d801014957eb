import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsObject, IsOptional, IsString, IsUUID, Length, ValidateNested } from 'class-validator';

export class ExpectedToolCallDto {
  @ApiProperty({ description: 'Tool name, e.g. oa__purchase_pay' }) @IsString() @Length(1, 200) tool: string;
  @ApiPropertyOptional({ description: 'The call passes when its args contain these (deeply)', type: 'object', additionalProperties: true })
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
