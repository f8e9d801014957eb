import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { OptionalJsonValue } from '@warden/common';

/** POST …/rollback: the version to put back, and why. */
export class PolicyRollbackDto {
  @ApiProperty({ minimum: 1, description: 'The version whose config becomes the policy again (as a new version)' })
  @IsInt()
  @Min(1)
  @Max(999_999_999)
  version: number;

  @ApiPropertyOptional({ description: 'Why (kept with the new version)' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  comment?: string;

  @ApiPropertyOptional({
    description: "Save even if the policy's tests fail on it (the failing cases are recorded with the version)",
  })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

export class PolicyVersionResponse {
  @ApiProperty() version: number;
  @ApiProperty() created_at: string;
  @ApiProperty({ type: String, nullable: true }) created_by: string | null;
  @ApiProperty({ type: String, nullable: true }) comment: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Set on a rollback: the version it restored' })
  rolled_back_to: number | null;
  @ApiProperty({
    type: [String],
    nullable: true,
    description:
      'Saved with force: true although these policy test cases failed (null when the tests passed or there were none)',
  })
  tests_forced: string[] | null;
  @ApiProperty({ enum: ['live'] }) mode: string;
}

export class AgentPolicyVersionResponse extends PolicyVersionResponse {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      "The agent's policy in this version: " +
      'the { hooks?, confirmation?, require_confirmation_for_all? } of its model_config_json',
  })
  model_config_json: Record<string, unknown>;
}

export class OrgHooksVersionResponse extends PolicyVersionResponse {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The org hooks in this version (as GET /api/org/hooks shows them)',
  })
  hooks: Record<string, unknown>;
}

export class PolicyChangeResponse {
  @ApiProperty({ enum: ['add', 'remove', 'replace'] }) op: string;
  @ApiProperty({ description: 'JSON pointer (RFC 6901) into the config', example: '/hooks/class_hooks/1' })
  path: string;
  @OptionalJsonValue('The value before (absent for add)') before?: unknown;
  @OptionalJsonValue('The value after (absent for remove)') after?: unknown;
}

export class PolicyDiffResponse {
  @ApiProperty() from: number;
  @ApiProperty() to: number;
  @ApiProperty({ type: [PolicyChangeResponse] }) changes: PolicyChangeResponse[];
}
