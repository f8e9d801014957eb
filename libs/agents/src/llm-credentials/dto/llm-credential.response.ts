import { ApiProperty } from '@nestjs/swagger';
import { NullableString } from '@warden/common';

/** A stored credential, without its key (keys are never returned). */
export class LlmCredentialResponse {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @NullableString('the one origin its key may be sent to; null for a key stored before origins (PUT one with the key)')
  origin: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @NullableString('sub of the admin who stored it') created_by: string | null;
}
