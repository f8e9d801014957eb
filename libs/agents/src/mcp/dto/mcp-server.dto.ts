import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { JsonObject, NullableString } from '@warden/common';
import { IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import type { McpToolOverride } from '../mcp-server.types.js';

/** Field-level shape only; the name, URL, headers and overrides (CEL) are checked by McpServersService. */
export class McpServerDto {
  @ApiProperty({ example: 'shop' }) @IsString() @MaxLength(64) name: string;
  @ApiProperty({ example: 'https://mcp.example.com/mcp', description: 'Streamable HTTP endpoint' })
  @IsString()
  @MaxLength(2000)
  url: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Sent on every request (e.g. Authorization: Bearer …); stored encrypted, never returned',
  })
  @IsOptional()
  @IsObject()
  headers?: Record<string, string>;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { pay: { requires_confirmation_when: 'args.amount > 50000' } },
    description:
      'Per tool (its name on the server): requires_confirmation, requires_confirmation_when (CEL over args), write',
  })
  @IsOptional()
  @IsObject()
  tool_overrides?: Record<string, McpToolOverride>;
}

export class McpToolResponse {
  @ApiProperty({ description: '<server>__<tool>' }) name: string;
  @ApiProperty({ description: "The tool's name on its server" }) tool: string;
  @ApiProperty() description: string;
  @JsonObject() parameters: Record<string, unknown>;
  @ApiProperty({ description: 'Counts as a write (read_only_guard blocks it; evals simulate it)' }) write: boolean;
  @ApiProperty() requires_confirmation: boolean;
  @NullableString('CEL over args') requires_confirmation_when: string | null;
  @ApiProperty({ type: Boolean, nullable: true }) read_only_hint: boolean | null;
  @ApiProperty({ type: Boolean, nullable: true }) destructive_hint: boolean | null;
}

export class McpServerResponse {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() url: string;
  @ApiProperty({ type: [String], description: 'Header names only: values are secrets' }) header_keys: string[];
  @JsonObject() tool_overrides: Record<string, unknown>;
  @ApiProperty({ enum: ['connected', 'unreachable'] }) status: string;
  @NullableString('Why the server could not be reached') error: string | null;
  @ApiProperty({ type: [McpToolResponse] }) tools: McpToolResponse[];
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
}
