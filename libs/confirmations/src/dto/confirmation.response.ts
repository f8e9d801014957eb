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
  @NullableString('digest of tool + args: what an approval binds to') args_digest: string | null;
  @ApiProperty({ type: [String], description: 'the approver policy copied into the request (README "Who may approve")' }) approvers: string[];
  @ApiProperty({ type: Number, nullable: true, description: 'index of the tier that applied' }) tier: number | null;
  @ApiProperty() approvals_required: number;
  @ApiProperty() approvals_given: number;
  @ApiProperty({ example: '1 of 2 approvals' }) approvals_progress: string;
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
}
