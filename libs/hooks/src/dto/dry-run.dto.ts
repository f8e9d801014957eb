import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, MaxLength, ValidateIf } from 'class-validator';
import { HookPoint } from '../hook.types.js';

export const DRY_RUN_POINTS: readonly HookPoint[] = [
  HookPoint.PreToolUse,
  HookPoint.UserPromptSubmit,
  HookPoint.PreModelCall,
  HookPoint.PostToolUseFailure,
  HookPoint.Stop,
];

export class DryRunDto {
  @ApiPropertyOptional({ description: 'A saved agent whose hooks to try (or give model_config_json)' })
  @ValidateIf((_, v) => v !== undefined)
  @IsUUID()
  agent_id?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'An unsaved agent config whose hooks to try (or give agent_id)',
  })
  @ValidateIf((_, v) => v !== undefined)
  @IsObject()
  model_config_json?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: DRY_RUN_POINTS, description: 'The hook point to try (default PreToolUse)' })
  @IsOptional()
  @IsIn(DRY_RUN_POINTS)
  point?: string;

  @ApiPropertyOptional({
    example: 'oa__purchase_pay',
    description: 'The tool (required for PreToolUse and PostToolUseFailure)',
  })
  @ValidateIf(
    (o: { point?: string }) => o.point === undefined || o.point === 'PreToolUse' || o.point === 'PostToolUseFailure',
  )
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  tool?: string;

  @ApiPropertyOptional({
    description:
      'The prompt (UserPromptSubmit), the answer (Stop), the error observation (PostToolUseFailure), ' +
      'or the model name (PreModelCall)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  text?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { id: 'PO-1', amount: 60000 } })
  @IsOptional()
  @IsObject()
  args?: Record<string, unknown>;
}
