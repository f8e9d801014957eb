import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { HookPoint } from '../hook.types.js';
import { NullableString } from '@warden/common';

export class HookInfoResponse {
  @ApiProperty() name: string;
  @ApiProperty({ enum: Object.values(HookPoint) }) point: string;
  @ApiProperty() priority: number;
  @ApiProperty() description: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "JSON Schema of the hook's config",
  })
  config_schema: object | null;
  @ApiProperty({ description: 'Attached to every agent whether declared or not' }) auto_attached: boolean;
  @ApiProperty({ description: 'Runs after every other hook of its point (the confirmation gate)' }) runs_last: boolean;
}

export class DryRunTierResponse {
  @ApiProperty({ description: 'Position in confirmation.tiers, from 0' }) index: number;
  @ApiProperty({ example: 'args.amount > 50000' }) when: string;
  @ApiProperty({ description: 'Distinct approvals needed' }) approvals: number;
  @ApiProperty({ type: [String], description: 'Who may approve under this tier' }) approvers: string[];
}

export class DryRunVerdictResponse {
  @ApiProperty() hook: string;
  @ApiProperty({ enum: Object.values(HookPoint) }) point: string;
  @ApiProperty({ enum: ['allow', 'block', 'rewrite', 'ask', 'would_require_confirmation'] }) outcome: string;
  @NullableString() detail: string | null;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'The args as this hook left them (it rewrote them)',
  })
  args_after?: Record<string, unknown>;
  @ApiPropertyOptional({
    description: "What selected the call: a YAML hook's matcher and condition, or why the gate asks for a human",
    example: 'requires_confirmation_when args.amount > 50000',
  })
  rule?: string;
  @ApiPropertyOptional({
    type: [String],
    description: 'The confirmation gate: who may approve this call (the tier that applies, else the policy)',
    example: ['org_admins'],
  })
  approvers?: string[];
  @ApiPropertyOptional({
    type: () => DryRunTierResponse,
    description: 'The confirmation gate: the first tier whose condition holds',
  })
  tier?: DryRunTierResponse;
}
