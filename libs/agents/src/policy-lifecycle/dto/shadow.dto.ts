import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';

const CONFIG = {
  type: 'object',
  additionalProperties: true,
  description:
    "The candidate policy: an agent's { hooks?, confirmation?, require_confirmation_for_all? }, " +
    "or the org's hooks { class_hooks?, yaml? }",
} as const;

/** POST …/shadow: deploy a candidate policy beside the live one. */
export class ShadowDeployDto {
  @ApiProperty(CONFIG)
  @IsObject()
  config: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Why (kept with the shadow, and with the version if it is promoted)' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  comment?: string;
}

/** POST …/shadow/promote. */
export class ShadowPromoteDto {
  @ApiPropertyOptional({ description: 'Comment of the new live version (default: "promoted from shadow <id>")' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  comment?: string;

  @ApiPropertyOptional({
    description: 'Promote even if the policy tests fail on the shadow (the failing cases are recorded)',
  })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

export class ShadowResponse {
  @ApiProperty() id: string;
  @ApiProperty(CONFIG) config: Record<string, unknown>;
  @ApiProperty({ type: Number, nullable: true, description: 'The live version when the shadow was deployed' })
  live_version: number | null;
  @ApiProperty({ type: String, nullable: true }) comment: string | null;
  @ApiProperty({ type: String, nullable: true }) deployed_by: string | null;
  @ApiProperty() deployed_at: string;
}

export class DecisionSideResponse {
  @ApiProperty({ enum: ['allow', 'ask', 'block'] }) decision: string;
  @ApiProperty({ description: 'Distinct approvals required (0 unless ask)' }) approvals: number;
  @ApiProperty({ type: String, nullable: true }) blocked_by: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) reason?: string | null;
  @ApiProperty({ description: 'Digest of the tool and args as the chain left them (what would be sent)' })
  args_digest: string;
}

export class ShadowCallResponse {
  @ApiProperty() decision_id: string;
  @ApiProperty({ type: String, nullable: true }) run_id: string | null;
  @ApiProperty({ type: String, nullable: true }) call_id: string | null;
  @ApiProperty({ type: String, nullable: true }) agent_id: string | null;
  @ApiProperty({ type: String, nullable: true }) user_id: string | null;
  @ApiProperty() tool: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The model's args, as the policy decided on them",
  })
  args: Record<string, unknown>;
  @ApiProperty() at: string;
  @ApiProperty({ type: DecisionSideResponse }) live: DecisionSideResponse;
  @ApiProperty({ type: DecisionSideResponse }) shadow: DecisionSideResponse;
  @ApiProperty({
    type: [String],
    description: 'would_block, would_unblock, would_ask, would_not_ask, approvals_changed, rewrite_changed',
  })
  differences: string[];
  @ApiProperty({
    type: [String],
    description: 'Command/HTTP hooks of the shadow that were not run (their verdict is unknown)',
  })
  skipped: string[];
}

export class ShadowReportResponse {
  @ApiProperty({ type: ShadowResponse }) shadow: ShadowResponse;
  @ApiProperty({ description: 'Live calls the shadow decided too' }) calls_seen: number;
  @ApiProperty({ description: 'Calls it would have decided differently' }) differing: number;
  @ApiProperty({ description: 'Calls where a command/HTTP hook of the shadow was not run' }) incomplete: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description: 'Differing calls per kind of difference',
  })
  counts: Record<string, number>;
  @ApiProperty({ type: [ShadowCallResponse], description: 'The differing calls, oldest first (at most 1000)' })
  calls: ShadowCallResponse[];
  @ApiProperty() truncated: boolean;
}

export class ShadowPromotedResponse {
  @ApiProperty() promoted: string;
  @ApiProperty({ type: Number, nullable: true, description: 'The live version it became' }) version: number | null;
}

export class ShadowDiscardedResponse {
  @ApiProperty() discarded: string;
}
