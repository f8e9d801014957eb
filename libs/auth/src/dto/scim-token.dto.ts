import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { NullableString } from '@warden/common';
import { IsOptional, IsString, Length } from 'class-validator';

export class CreateScimTokenDto {
  @ApiPropertyOptional({ description: 'What the token is for, e.g. "Okta"' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  label?: string;
}

export class ScimTokenResponse {
  @ApiProperty() id: string;
  @NullableString() label: string | null;
  @NullableString('The user id of the admin who created it') created_by: string | null;
  @ApiProperty() created_at: string;
  @NullableString() revoked_at: string | null;
}

export class CreatedScimTokenResponse extends ScimTokenResponse {
  @ApiProperty({ description: 'The bearer secret for the identity provider: shown once, stored only as a hash' })
  token: string;
}
