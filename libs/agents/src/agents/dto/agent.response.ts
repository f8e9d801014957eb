import { ApiProperty } from '@nestjs/swagger';
import { JsonObject, NullableString } from '@warden/common';

export class AgentResponse {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() instructions: string;
  @JsonObject() model_config_json: Record<string, unknown>;
  @NullableString() owner_user_id: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: Date;
}
