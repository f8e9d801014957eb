import { ApiProperty } from '@nestjs/swagger';
import { NullableString } from '@warden/common';

export class RunPolicyVersionsResponse {
  @ApiProperty({
    type: Number,
    nullable: true,
    description: "The agent's policy version (GET /api/agents/:id/versions/:n)",
  })
  agent: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "The org hooks' version (GET /api/org/hooks/versions/:n)" })
  org_hooks: number | null;
}

export class RunTokenUsageResponse {
  @ApiProperty({ description: 'Prompt tokens of every model call that reported its usage' }) prompt_tokens: number;
  @ApiProperty({ description: 'Completion tokens of those calls' }) completion_tokens: number;
  @ApiProperty({ description: 'Their total, as the model server counted it' }) total_tokens: number;
  @ApiProperty({ description: 'How many model calls reported usage (a model server may report none)' })
  reported_calls: number;
}

export class RunResponse {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['running', 'waiting', 'completed', 'failed', 'refused', 'cancelled'] }) status: string;
  @ApiProperty({ enum: ['chat', 'api', 'dag', 'delegate', 'workflow', 'eval'] }) surface: string;
  @ApiProperty({ enum: ['react', 'dag'] }) mode: string;
  @ApiProperty({ description: 'applied, or bypassed (evals)' }) hooks: string;
  @ApiProperty() agent_id: string;
  @NullableString() user_id: string | null;
  @NullableString() conversation_id: string | null;
  @NullableString() parent_run_id: string | null;
  @NullableString() parent_call_id: string | null;
  @ApiProperty() message: string;
  @NullableString() answer: string | null;
  @NullableString() error: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at: Date | null;
  @ApiProperty({
    type: RunPolicyVersionsResponse,
    nullable: true,
    description: 'The policy versions the run started under (null for runs recorded before versions existed)',
  })
  policy_versions: RunPolicyVersionsResponse | null;
  @NullableString('The OpenTelemetry trace id of the run (null when it was not traced)') trace_id: string | null;
  @ApiProperty({
    type: RunTokenUsageResponse,
    nullable: true,
    description: "The run's tokens, summed from its model calls' reported usage (null when no call reported any)",
  })
  usage: RunTokenUsageResponse | null;
  @ApiProperty({
    description: "The run's events that say what hooks and tools did: { seq, type, ...data, at }",
    type: 'array',
    items: { type: 'object', additionalProperties: true },
  })
  trace: Array<Record<string, unknown>>;
}
