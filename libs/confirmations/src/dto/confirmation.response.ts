import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { JsonObject, NullableString } from '@warden/common';

export class StandingApprovalResponse {
  @ApiProperty() id: string;
  @ApiProperty() run_id: string;
  @ApiProperty() tool: string;
  @ApiProperty({ description: 'CEL over args that later calls satisfy' }) when: string;
  @ApiProperty() max_calls: number;
  @ApiProperty({ description: 'calls that ran under it, the approved one included' }) uses: number;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty() confirmation_id: string;
  @ApiProperty() granted_by: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class ConfirmationEventResponse {
  @ApiProperty({ enum: ['reminded', 'escalated', 'reassigned'] }) kind: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) detail: Record<string, unknown>;
  @ApiProperty({ description: 'who took the step ("system" for reminders and escalations)' }) by: string;
  @ApiProperty({ type: String, nullable: true }) by_user_id: string | null;
  @ApiProperty({ format: 'date-time' }) at: string;
}

export class ConfirmationVoteResponse {
  @ApiProperty() user_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['approve', 'reject'] }) decision: string;
  @NullableString('feishu | slack | wecom, or null for the inbox/API') platform: string | null;
  @NullableString('the chat identity the decision came from') external_id: string | null;
  @ApiProperty({ type: [String], description: 'the approver policy that let this person decide' }) approvers: string[];
  @ApiProperty({ type: Number, nullable: true, description: 'index of the tier that applied' }) tier: number | null;
  @ApiProperty({ format: 'date-time' }) at: string;
}

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
  @ApiProperty({
    description:
      'false when the stored args no longer match args_digest: args then holds only a notice, and no decision is taken',
  })
  args_intact: boolean;
  @ApiProperty({
    type: [String],
    description: 'the approver policy copied into the request (README "Who may approve")',
  })
  approvers: string[];
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
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "The action's parameter schema (what an edit must satisfy)",
  })
  args_schema: Record<string, unknown> | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Approved with changes: the args as proposed (args holds the edit)',
  })
  original_args: Record<string, unknown> | null;
  @NullableString('Who approved with changes') edited_by: string | null;
  @NullableString() edited_by_user_id: string | null;
  @NullableString('A hook asked for this approval: its reason') ask_reason: string | null;
  @NullableString("The rule that made the call need a person, e.g. the action's condition `args.amount > 50000`")
  trigger: string | null;
  @NullableString("The member's message the run started from") member_message: string | null;
  @ApiPropertyOptional({ type: [ConfirmationVoteResponse], description: "GET one only: each person's decision" })
  votes?: ConfirmationVoteResponse[];
  @ApiPropertyOptional({
    type: [ConfirmationEventResponse],
    description: 'GET one only: reminders, escalations, reassignments',
  })
  history?: ConfirmationEventResponse[];
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) remind_at: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) reminded_at: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) escalate_at: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) escalated_at: string | null;
  @NullableString('The channel the escalation card went to') escalation_channel_id: string | null;
  @NullableString('Shared by the gated calls of one model turn (one card or one inbox group)') batch_key: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Its place among the calls of its model turn (0 = first)' })
  batch_position: number | null;
  @ApiPropertyOptional({
    type: StandingApprovalResponse,
    nullable: true,
    description: 'GET one / decision only: the standing approval it granted',
  })
  standing_approval?: StandingApprovalResponse | null;
}
