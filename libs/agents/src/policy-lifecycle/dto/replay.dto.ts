import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsObject, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { DecisionSideResponse } from './shadow.dto.js';

/** POST /api/policies/replay. */
export class ReplayDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      "The candidate: the agent's policy fragment (with `agent`) or the org hooks. Exactly one of config or version.",
  })
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;

  @ApiPropertyOptional({
    minimum: 1,
    description: "A version of the agent's policy (with `agent`) or of the org hooks",
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(999_999_999)
  version?: number;

  @ApiProperty({ description: 'Start of the window (ISO time, inclusive)' })
  @IsString()
  @MaxLength(64)
  from: string;

  @ApiProperty({ description: 'End of the window (ISO time, exclusive); at most 31 days after from' })
  @IsString()
  @MaxLength(64)
  to: string;

  @ApiPropertyOptional({
    description: "Replay this agent's calls under a candidate of its policy (default: the org hooks, every call)",
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  agent?: string;

  @ApiPropertyOptional({
    description: 'Run command and HTTP hooks of the candidate (through the egress policy); default false',
  })
  @IsOptional()
  @IsBoolean()
  allow_external_hooks?: boolean;
}

export class ReplayDecisionResponse extends DecisionSideResponse {
  @ApiProperty({ type: Number, nullable: true }) tier: number | null;
  @ApiProperty({ description: 'The chain changed the args' }) rewritten: boolean;
}

export class ReplayChangeResponse {
  @ApiProperty() decision_id: string;
  @ApiProperty({ type: String, nullable: true }) run_id: string | null;
  @ApiProperty({ type: String, nullable: true }) call_id: string | null;
  @ApiProperty({ type: String, nullable: true }) agent_id: string | null;
  @ApiProperty({ type: String, nullable: true }) user_id: string | null;
  @ApiProperty() tool: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) args: Record<string, unknown>;
  @ApiProperty() at: string;
  @ApiProperty({ type: ReplayDecisionResponse, description: 'What the live policy decided' })
  old: ReplayDecisionResponse;
  @ApiProperty({ type: ReplayDecisionResponse, description: 'What the candidate decides' }) new: ReplayDecisionResponse;
  @ApiProperty({ type: [String] }) differences: string[];
  @ApiProperty({ type: [String] }) skipped: string[];
}

export class ReplaySummaryResponse {
  @ApiProperty() calls: number;
  @ApiProperty() changed: number;
  @ApiProperty() more_approvals: number;
  @ApiProperty() fewer_approvals: number;
  @ApiProperty() newly_blocked: number;
  @ApiProperty() newly_unblocked: number;
  @ApiProperty() newly_asked: number;
  @ApiProperty() no_longer_asked: number;
  @ApiProperty() changed_rewrites: number;
  @ApiProperty() incomplete: number;
  @ApiProperty({ example: 'this change would have required 37 more approvals, blocked 2 calls, changed 0 rewrites' })
  text: string;
}

export class ReplayResponse {
  @ApiProperty() from: string;
  @ApiProperty() to: string;
  @ApiProperty({ type: String, nullable: true }) agent: string | null;
  @ApiProperty({ type: ReplaySummaryResponse }) summary: ReplaySummaryResponse;
  @ApiProperty({
    type: [ReplayChangeResponse],
    description: 'The calls decided differently, oldest first (at most 10 000)',
  })
  changes: ReplayChangeResponse[];
  @ApiProperty() truncated: boolean;
}
