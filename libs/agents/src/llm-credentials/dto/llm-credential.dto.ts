import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';

export class CreateLlmCredentialDto {
  @ApiProperty({ description: 'Unique in the org, e.g. "openai-prod"' })
  @IsString()
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(100)
  @Matches(/^\S(.*\S)?$/, { message: 'name must not start or end with whitespace' })
  name: string;

  @ApiProperty({ description: 'The API key; write-only: never returned', writeOnly: true })
  @IsString()
  @IsNotEmpty({ message: 'api_key must not be empty' })
  @MaxLength(4096)
  api_key: string;
}
