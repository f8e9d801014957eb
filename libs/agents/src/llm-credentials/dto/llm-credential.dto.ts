import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class CreateLlmCredentialDto {
  @ApiProperty({ description: 'Unique in the org, e.g. "openai-prod"' })
  @IsString()
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(100)
  @Matches(/^\S(.*\S)?$/, { message: 'name must not start or end with whitespace' })
  name: string;

  @ApiProperty({
    description:
      'The model server the key is for, e.g. "https://api.openai.com" (a base URL is taken as its origin): ' +
      'the key is sent to no other scheme, host or port',
  })
  @IsString()
  @IsNotEmpty({ message: 'origin must not be empty' })
  @MaxLength(2048)
  origin: string;

  @ApiProperty({ description: 'The API key; write-only: never returned', writeOnly: true })
  @IsString()
  @IsNotEmpty({ message: 'api_key must not be empty' })
  @MaxLength(4096)
  api_key: string;
}

/** A PUT replaces name and origin; the key left out stays, unless the origin changes (then it must be given again). */
export class UpdateLlmCredentialDto extends OmitType(CreateLlmCredentialDto, ['api_key'] as const) {
  @ApiPropertyOptional({
    description: 'A new key; required when origin changes. Write-only: never returned',
    writeOnly: true,
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: 'api_key must not be empty' })
  @MaxLength(4096)
  api_key?: string;
}
