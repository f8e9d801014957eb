import { ApiProperty } from '@nestjs/swagger';
import { JsonObject, NullableString } from '@warden/common';

export class ConfirmationResponse {
  @ApiProperty() id: string;
  @ApiProperty() run_id: string;
  @ApiProperty() call_id: string;
  @NullableString() agent_id: string | null;
  @NullableString() agent_name: string | null;
  @ApiProperty() tool: string;
  @JsonObject() args: Record<string, unknown>;
  @ApiProperty({ enum: ['pending', 'approved', 'rejected', 'expired'] }) status: string;
  @NullableString('User id of the requester') requested_by: string | null;
  @ApiProperty({ enum: ['initiator', 'agent_owner', 'org_members', 'org_admins'] }) approver_scope: string;
  @ApiProperty() forbid_self_approval: boolean;
  @NullableString() channel_id: string | null;
  @NullableString() channel_type: string | null;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @NullableString('Name of who decided') responded_by: string | null;
  @NullableString() responded_by_user_id: string | null;
  @NullableString() responded_by_open_id: string | null;
  @NullableString('feishu | slack | wecom, or null for the inbox/API') responded_by_platform: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) responded_at: string | null;
  @NullableString() reason: string | null;
  @ApiProperty({ description: 'Distinct approvals needed' }) approvals_required: number;
  @ApiProperty() approvals_given: number;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: "The action's parameter schema (what an edit must satisfy)" }) args_schema: Record<string, unknown> | null;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'Approved with changes: the args as proposed (args holds the edit)' }) original_args: Record<string, unknown> | null;
  @NullableString('Who approved with changes') edited_by: string | null;
  @NullableString() edited_by_user_id: string | null;
  @NullableString('A hook asked for this approval: its reason') ask_reason: string | null;
}
