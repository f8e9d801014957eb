import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { JsonObject, NullableString, OptionalJsonValue } from '@warden/common';

export class WorkflowResponse {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: '{ nodes: [...], edges: [...] }' })
  definition: Record<string, unknown>;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: Date;
}

export class WorkflowRunStartedResponse {
  @ApiProperty() run_id: string;
  @ApiProperty({ enum: ['running', 'waiting', 'completed', 'failed', 'cancelled'] }) status: string;
}

export class WorkflowNodeStateResponse {
  @ApiProperty({ enum: ['pending', 'running', 'waiting', 'completed', 'failed', 'skipped'] }) status: string;
  @OptionalJsonValue("The node's output (any JSON, null included)")
  output?: unknown;
  @ApiPropertyOptional() agent_run_id?: string;
  @ApiPropertyOptional({ description: 'A failed node: why' }) error?: string;
}

@ApiExtraModels(WorkflowNodeStateResponse)
export class WorkflowRunResponse {
  @ApiProperty() id: string;
  @ApiProperty() workflow_id: string;
  @ApiProperty({ enum: ['running', 'waiting', 'completed', 'failed', 'cancelled'] }) status: string;
  @JsonObject() inputs: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: { $ref: '#/components/schemas/WorkflowNodeStateResponse' } })
  nodes: Record<string, WorkflowNodeStateResponse>;
  @NullableString() error: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: Date;
}

export class WorkflowRunSummaryResponse {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['running', 'waiting', 'completed', 'failed', 'cancelled'] }) status: string;
  @ApiProperty({ description: 'who started it' }) user_id: string;
  @NullableString() error: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: Date;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: Date;
}

export class WorkflowToolResponse {
  @ApiProperty({ description: 'the tool a CONNECTOR node names, `<connector>__<action>`' }) name: string;
  @ApiProperty({ enum: ['connector', 'mcp'] }) kind: string;
  @ApiProperty({ description: 'the connector or MCP server offering it' }) source: string;
  @ApiProperty({ description: 'the action (or MCP tool) name within its source' }) action: string;
  @ApiProperty() description: string;
  @JsonObject() parameters: Record<string, unknown>;
  @ApiProperty({ description: 'whether the call changes something (writes)' }) write: boolean;
}

export class WorkflowValidationResponse {
  @ApiProperty({ type: [String], description: 'what saving would refuse, one message each; empty when it would save' })
  problems: string[];
}
