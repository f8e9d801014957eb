import { Body, Controller, Get, HttpCode, NotFoundException, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AppConfig } from '@warden/common';
import { Public } from '../decorators.js';
import { AuthConfigResponse, DevSignInDto, DevSignInResponse } from '../dto/dev-sign-in.dto.js';
import { mintDevToken } from '../tokens/dev-token.js';

const TOKEN_HOURS = 12;

/**
 * What the console needs before anyone is signed in: which sign-in to show, and in dev mode a form that mints a
 * token for any user. Outside dev mode, or in production, the sign-in route answers exactly like a route that does
 * not exist.
 */
@ApiTags('auth')
@Controller()
export class DevSignInController {
  constructor(private readonly config: AppConfig) {}

  @Get('auth/config')
  @Public()
  @ApiOkResponse({ type: AuthConfigResponse })
  authConfig(): AuthConfigResponse {
    return {
      mode: this.config.authMode,
      dev_sign_in: this.config.devSignIn,
      oidc_issuer: this.config.authMode === 'oidc' ? (this.config.oidcIssuer ?? null) : null,
      oidc_client_id: this.config.authMode === 'oidc' ? (this.config.oidcClientId ?? null) : null,
      oidc_scope: this.config.authMode === 'oidc' ? this.config.oidcConsoleScope : null,
    };
  }

  @Post('dev/sign-in')
  @Public()
  @HttpCode(200)
  @ApiOkResponse({ type: DevSignInResponse })
  async signIn(@Body() body: DevSignInDto): Promise<DevSignInResponse> {
    if (!this.config.devSignIn) throw new NotFoundException('Cannot POST /api/dev/sign-in');
    const token = await mintDevToken(this.config.devSecret, {
      sub: body.sub,
      org: body.org,
      roles: body.roles ?? [],
      name: body.name,
      expiresIn: `${TOKEN_HOURS}h`,
      orgClaim: this.config.orgClaim,
      rolesClaim: this.config.rolesClaim,
    });
    return { token, expires_at: new Date(Date.now() + TOKEN_HOURS * 3600_000).toISOString() };
  }
}
