import { ApiProperty } from '@nestjs/swagger';
import { NullableString } from '@warden/common';

export class ConversationSummaryResponse {
  @ApiProperty() id: string;
  @ApiProperty() agent_id: string;
  @NullableString('null when the agent was deleted') agent_name: string | null;
  @ApiProperty() user_id: string;
  @NullableString('the SSO subject of the user') user_sub: string | null;
  @ApiProperty({ description: 'the first message of the conversation' }) title: string;
  @ApiProperty({ description: 'runs (one per message sent)' }) run_count: number;
  @ApiProperty({
    enum: ['running', 'waiting', 'completed', 'failed', 'refused', 'cancelled'],
    description: 'status of the latest run',
  })
  last_status: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
  @ApiProperty({ type: String, format: 'date-time', description: 'when the latest run started' })
  last_activity_at: Date;
}

export class ConversationEventResponse {
  @ApiProperty({ description: "the event id of the run's stream (Last-Event-ID)" }) id: number;
  @ApiProperty({ description: 'the SSE event type (API.md "Chat (SSE)")' }) event: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) data: Record<string, unknown>;
}

export class ConversationRunResponse {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['running', 'waiting', 'completed', 'failed', 'refused', 'cancelled'] }) status: string;
  @ApiProperty() message: string;
  @NullableString() answer: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
  @ApiProperty({
    type: [ConversationEventResponse],
    description: "every event of the run's stream so far, as a replay would send them",
  })
  events: ConversationEventResponse[];
}

export class ConversationResponse {
  @ApiProperty() id: string;
  @ApiProperty() agent_id: string;
  @NullableString() agent_name: string | null;
  @ApiProperty() user_id: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
  @ApiProperty({ description: 'true when the caller may send the next message (only its owner may)' })
  can_continue: boolean;
  @ApiProperty({ type: [ConversationRunResponse], description: 'top-level runs, oldest first' })
  runs: ConversationRunResponse[];
}
