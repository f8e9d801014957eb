import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsOptional, IsString, IsUUID, Length, ValidateNested } from 'class-validator';

export class EvalCaseDto {
  @ApiProperty() @IsString() @Length(1, 20_000) input: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 2_000) expect_contains?: string;
}

export class CreateEvalDto {
  @ApiProperty() @IsUUID() agent_id: string;
  @ApiProperty({ type: [EvalCaseDto] })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(200) @ValidateNested({ each: true }) @Type(() => EvalCaseDto)
  cases: EvalCaseDto[];
}
