import { ApiProperty } from '@nestjs/swagger';
import { HookPoint } from '../hook.types.js';
import { NullableString } from '@warden/common';

export class HookInfoResponse {
  @ApiProperty() name: string;
  @ApiProperty({ enum: Object.values(HookPoint) }) point: string;
  @ApiProperty() priority: number;
  @ApiProperty() description: string;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: "JSON Schema of the hook's config" })
  config_schema: object | null;
  @ApiProperty({ description: 'Attached to every agent whether declared or not' }) auto_attached: boolean;
  @ApiProperty({ description: 'Runs after every other hook of its point (the confirmation gate)' }) runs_last: boolean;
}

export class DryRunVerdictResponse {
  @ApiProperty() hook: string;
  @ApiProperty({ enum: Object.values(HookPoint) }) point: string;
  @ApiProperty({ enum: ['allow', 'block', 'rewrite', 'ask', 'would_require_confirmation'] }) outcome: string;
  @NullableString() detail: string | null;
}
