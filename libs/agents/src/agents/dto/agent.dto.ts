import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

export class AgentDto {
  @ApiProperty() @IsString() @MinLength(1) @MaxLength(200) name: string;
  @ApiPropertyOptional() @IsOptional() @IsString() instructions?: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) @IsObject() model_config_json: Record<string, unknown>;
  @ApiPropertyOptional({ description: "Why: kept with the policy version this save makes (when the agent's policy changed)" })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  comment?: string;
}
