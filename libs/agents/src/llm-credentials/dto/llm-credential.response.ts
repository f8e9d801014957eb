import { ApiProperty } from '@nestjs/swagger';
import { NullableString } from '@warden/common';

/** A stored credential, without its key (keys are never returned). */
export class LlmCredentialResponse {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @NullableString('sub of the admin who stored it') created_by: string | null;
}
