import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { JsonObject, NullableString } from '@warden/common';

export class ChannelResponse {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['feishu', 'slack', 'wecom', 'inbox'] }) type: string;
  @ApiProperty() name: string;
  @JsonObject() config: Record<string, unknown>;
  @ApiProperty({ type: [String], description: 'Names of the secrets stored (values are never returned)' })
  secrets_set: string[];
  @ApiProperty() is_default: boolean;
  @ApiProperty() callback_url: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class ChannelTestResponse {
  @ApiProperty() ok: boolean;
  @ApiPropertyOptional() message_id?: string;
  @ApiPropertyOptional() error?: string;
}

export class NotificationResponse {
  @ApiProperty() id: string;
  @NullableString() channel_id: string | null;
  @NullableString() agent_id: string | null;
  @NullableString() run_id: string | null;
  @NullableString() user_id: string | null;
  @ApiProperty() text: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
