import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsObject, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';

export class AgentDto {
  @ApiProperty() @IsString() @MinLength(1) @MaxLength(200) name: string;
  @ApiPropertyOptional() @IsOptional() @IsString() instructions?: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) @IsObject() model_config_json: Record<string, unknown>;
  @ApiPropertyOptional({
    description: "Why: kept with the policy version this save makes (when the agent's policy changed)",
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  comment?: string;
  @ApiPropertyOptional({
    description: "Save even if the agent's policy tests fail on the new policy (the failing cases are recorded)",
  })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

/** A config to check without saving it (POST /api/agents/validate). */
export class AgentValidateDto {
  @ApiProperty({ type: 'object', additionalProperties: true }) @IsObject() model_config_json: Record<string, unknown>;
  @ApiPropertyOptional({
    description: 'The saved agent this config is for (its own id is no delegate; cycles are checked)',
  })
  @IsOptional()
  @IsUUID()
  agent_id?: string;
}

export class AgentProblemsResponse {
  @ApiProperty({
    type: [String],
    description: 'What a save would refuse, each starting with its path (empty: the config would be saved)',
    example: ['model_config_json.confirmation.tiers[0].when "args.amount >" is not a valid CEL condition: ...'],
  })
  @IsArray()
  problems: string[];
}
