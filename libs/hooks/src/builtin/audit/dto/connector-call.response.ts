import { ApiProperty } from '@nestjs/swagger';
import { NullableString } from '@warden/common';

export class ConnectorCallResponse {
  @ApiProperty() id: string;
  @ApiProperty() org_id: string;
  @NullableString() agent_id: string | null;
  @NullableString() user_id: string | null;
  @NullableString() run_id: string | null;
  @NullableString() call_id: string | null;
  @NullableString() surface: string | null;
  @ApiProperty() tool: string;
  @NullableString() connector_id: string | null;
  @NullableString() connector: string | null;
  @NullableString() action: string | null;
  @NullableString() method: string | null;
  @NullableString() url: string | null;
  @NullableString() args_digest: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) args: Record<string, unknown> | null;
  @ApiProperty({ type: Number, nullable: true }) status: number | null;
  @ApiProperty({ type: Number, nullable: true }) duration_ms: number | null;
  @ApiProperty() success: boolean;
  @NullableString() error: string | null;
  @NullableString() blocked_by: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Who approved the call, under which approval' })
  approved_by: string | null;
  @ApiProperty({ description: "An eval run's call: simulated, never sent" }) simulated: boolean;
  @ApiProperty({
    enum: ['in_flight', 'completed', 'interrupted'],
    description: 'in_flight while the call is being sent; interrupted when the process stopped before it answered',
  })
  outcome: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
}
