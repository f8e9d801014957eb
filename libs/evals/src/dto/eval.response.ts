import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { JsonObject, NullableString } from '@warden/common';

export class EvalStartedResponse {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['running', 'completed', 'failed', 'interrupted'] }) status: string;
  @ApiProperty({ description: 'Always "bypassed": eval runs skip hooks on purpose, and writes are simulated' })
  hooks: string;
}

/** One call the agent made in a case: what was sent (or simulated) and how it ended. */
export class EvalToolCallResponse {
  @ApiProperty() tool: string;
  @JsonObject() args: Record<string, unknown>;
  @ApiProperty({ description: 'A write (or a simulated read): answered from the fixtures, never sent' })
  simulated: boolean;
  @ApiProperty() status: string;
}

/** One case's outcome. */
export class EvalCaseResultResponse {
  @ApiProperty() input: string;
  @NullableString("The agent's answer") output: string | null;
  @ApiProperty() passed: boolean;
  @ApiPropertyOptional({ type: [String], description: 'Why the case failed, one line per unmet expectation' })
  failures?: string[];
  @ApiProperty({ type: [EvalToolCallResponse] }) tool_calls: EvalToolCallResponse[];
  @ApiProperty({ description: 'The run of the case (its trace: GET /api/runs/:id)' }) run_id: string;
  @ApiPropertyOptional() error?: string;
}

/** An eval in a list: its outcome so far, without the cases. */
export class EvalSummaryResponse extends EvalStartedResponse {
  @ApiProperty() agent_id: string;
  @ApiProperty({
    enum: ['live', 'simulated'],
    description: 'Connector reads run for real, or are simulated like writes',
  })
  reads: string;
  @NullableString() error: string | null;
  @ApiProperty({ description: 'Cases passed so far' }) passed: number;
  @ApiProperty({ description: 'Cases run so far' }) done: number;
  @ApiProperty({ description: 'Cases in the eval' }) total: number;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
}

export class EvalResponse extends EvalSummaryResponse {
  @ApiProperty({ type: [EvalCaseResultResponse], description: 'One result per case run so far, in case order' })
  results: EvalCaseResultResponse[];
}
