import { ApiProperty } from '@nestjs/swagger';
import { NullableString } from '@warden/common';

export class EvalStartedResponse {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['running', 'completed', 'failed', 'interrupted'] }) status: string;
  @ApiProperty({ description: 'Always "bypassed": eval runs skip hooks on purpose, and writes are simulated' }) hooks: string;
}

export class EvalResponse extends EvalStartedResponse {
  @ApiProperty() agent_id: string;
  @ApiProperty({ enum: ['live', 'simulated'], description: 'Connector reads run for real, or are simulated like writes' })
  reads: string;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: '{ input, output, passed, tool_calls }',
  })
  results: object[];
  @NullableString() error: string | null;
  @ApiProperty() passed: number;
  @ApiProperty() total: number;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
}
