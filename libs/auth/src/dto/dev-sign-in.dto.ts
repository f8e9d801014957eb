import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Length, Matches } from 'class-validator';

export class DevSignInDto {
  @ApiProperty({ description: 'User subject (e.g. alice)', example: 'alice' })
  @IsString()
  @Length(1, 200)
  @Matches(/^[\w.@-]+$/, { message: 'sub may contain letters, digits, _ . @ - only' })
  sub: string;

  @ApiProperty({ description: 'Organisation external id', example: 'demo' })
  @IsString()
  @Length(1, 200)
  @Matches(/^[\w.-]+$/, { message: 'org may contain letters, digits, _ . - only' })
  org: string;

  @ApiPropertyOptional({ description: 'Org roles; "admin" administers the org', type: [String], example: ['admin'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Length(1, 50, { each: true })
  roles?: string[];

  @ApiPropertyOptional({ description: 'Display name' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;
}

export class DevSignInResponse {
  @ApiProperty({ description: 'HS256 bearer token for AUTH_MODE=dev' }) token: string;
  @ApiProperty({ description: 'ISO time the token expires' }) expires_at: string;
}

export class AuthConfigResponse {
  @ApiProperty({ enum: ['dev', 'oidc'] }) mode: 'dev' | 'oidc';
  @ApiProperty({ description: 'Whether POST /api/dev/sign-in exists (dev auth outside production)' })
  dev_sign_in: boolean;
  @ApiProperty({ type: String, description: 'OIDC issuer the console signs in with', nullable: true }) oidc_issuer:
    string | null;
  @ApiProperty({ type: String, description: "The console's OIDC client id (OIDC_CLIENT_ID)", nullable: true })
  oidc_client_id: string | null;
  @ApiProperty({
    type: String,
    description: 'The scope the console asks for: "openid profile email" and OIDC_SCOPES',
    nullable: true,
  })
  oidc_scope: string | null;
}
