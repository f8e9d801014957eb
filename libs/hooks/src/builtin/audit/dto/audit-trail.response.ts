import { ApiProperty } from '@nestjs/swagger';
import { JsonObject, NullableString } from '@warden/common';

export class BrokenLinkResponse {
  @ApiProperty({ description: 'The event id: its seq as text ("" when events are missing at the end)' }) id: string;
  @ApiProperty({ description: 'Position in the org chain' }) seq: number;
  @ApiProperty() kind: string;
  @ApiProperty() action: string;
  @ApiProperty() occurred_at: string;
  @ApiProperty({
    description: 'What does not hold: edited event, changed or deleted log row, missing events, broken prev_hash',
  })
  reason: string;
  @ApiProperty() stored_hash: string;
  @NullableString('The hash the stored content gives') expected_hash: string | null;
}

export class VerifyResponse {
  @ApiProperty() valid: boolean;
  @ApiProperty({ description: 'Events checked' }) rows: number;
  @ApiProperty({ type: Number, nullable: true }) first_seq: number | null;
  @ApiProperty({ type: Number, nullable: true }) last_seq: number | null;
  @NullableString('Hash of the last event checked (anchor it to prove later that nothing before it changed)')
  last_hash: string | null;
  @ApiProperty({ type: BrokenLinkResponse, nullable: true }) first_broken: BrokenLinkResponse | null;
}

export class AuditEventResponse {
  @ApiProperty({ description: 'The event id: its seq in the org chain, as text' }) id: string;
  @ApiProperty() seq: number;
  @ApiProperty({ enum: ['connector_call', 'config', 'confirmation', 'identity'] }) kind: string;
  @ApiProperty() action: string;
  @NullableString() entity_type: string | null;
  @NullableString() entity_id: string | null;
  @NullableString('User id of who caused it') actor: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) occurred_at: Date;
  @ApiProperty({ type: String, format: 'date-time' }) recorded_at: Date;
  @JsonObject() payload: Record<string, unknown>;
  @ApiProperty() prev_hash: string;
  @ApiProperty() hash: string;
}

export class AuditEventPageResponse {
  @ApiProperty({ type: [AuditEventResponse] }) items: AuditEventResponse[];
  @NullableString('Pass as cursor for the next (older) page; null on the last page') next_cursor: string | null;
}
