import { ApiProperty } from '@nestjs/swagger';
import { JsonObject, NullableString } from '@warden/common';

export class ConnectorActionResponse {
  @ApiProperty() name: string;
  @ApiProperty({ description: '<connector>__<action>' }) tool: string;
  @ApiProperty({ enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] }) method: string;
  @ApiProperty() path: string;
  @ApiProperty() description: string;
  @JsonObject() parameters: Record<string, unknown>;
  @ApiProperty() requires_confirmation: boolean;
  @NullableString('CEL over args, e.g. args.amount > 50000') requires_confirmation_when: string | null;
  @ApiProperty() write: boolean;
}

export class ConnectorResponse {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() base_url: string;
  @ApiProperty({ type: [String], description: 'Header names only: values are secrets' }) header_keys: string[];
  @ApiProperty({ type: [String] }) tools: string[];
  @ApiProperty({ type: [ConnectorActionResponse] }) actions: ConnectorActionResponse[];
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: Date;
}
