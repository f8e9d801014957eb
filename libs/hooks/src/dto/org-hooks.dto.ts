import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { HookPoint } from '../hook.types.js';
import { IsArray, IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';

/** The same schema as `model_config_json.hooks`; entries are checked by the hook resolver (400 naming each problem). */
export class OrgHooksDto {
  @ApiPropertyOptional({
    type: 'array',
    items: {},
    example: ['audit_log', { name: 'connector_rate_limit', config: { points: 10, duration_s: 60 } }],
  })
  @IsOptional()
  @IsArray()
  class_hooks?: unknown[];

  @ApiPropertyOptional({ description: 'YAML hooks (command, module or http), as in model_config_json.hooks.yaml' })
  @IsOptional()
  @IsString()
  @MaxLength(200_000)
  yaml?: string;

  @ApiPropertyOptional({ description: 'Why: kept with the policy version this change makes (not part of the hooks)' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  comment?: string;

  @ApiPropertyOptional({
    description: 'Save even if the policy tests fail on these hooks (the failing cases are recorded)',
  })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

export class OrgHooksResponse {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The org hooks config as saved ({} when none)',
  })
  hooks: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true }) updated_by: string | null;
  @ApiProperty({ type: String, nullable: true }) updated_at: string | null;
}

export class EffectiveHookResponse {
  @ApiProperty() name: string;
  @ApiProperty({ enum: Object.values(HookPoint) }) point: string;
  @ApiProperty() priority: number;
  @ApiProperty({
    enum: ['auto', 'org', 'agent'],
    description: "auto-attached, the org policy, or the agent's own config",
  })
  origin: string;
  @ApiProperty({ enum: ['class', 'yaml'] }) source: string;
  @ApiProperty({ description: 'Runs after every other hook of its point (the confirmation gate)' }) runs_last: boolean;
}

export class OverriddenHookResponse {
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['org'] }) by: string;
}

export class EffectiveHooksResponse {
  @ApiProperty() agent_id: string;
  @ApiProperty({ type: [EffectiveHookResponse], description: 'In run order per point' }) hooks: EffectiveHookResponse[];
  @ApiProperty({
    type: [OverriddenHookResponse],
    description: 'Agent entries dropped because the org declares a hook of that name',
  })
  overridden: OverriddenHookResponse[];
}
