import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, MaxLength, ValidateIf } from 'class-validator';

export class DryRunDto {
  @ApiPropertyOptional({ description: 'A saved agent whose hooks to try (or give model_config_json)' })
  @ValidateIf((_, v) => v !== undefined) @IsUUID() agent_id?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'An unsaved agent config whose hooks to try (or give agent_id)' })
  @ValidateIf((_, v) => v !== undefined) @IsObject() model_config_json?: Record<string, unknown>;

  @ApiProperty({ example: 'oa__purchase_pay' })
  @IsString() @IsNotEmpty() @MaxLength(200) tool: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { id: 'PO-1', amount: 60000 } })
  @IsOptional() @IsObject() args?: Record<string, unknown>;
}
