import { CanActivate, ExecutionContext, Injectable, UnauthorizedException, ForbiddenException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC, REQUIRED_ROLES } from './decorators.js';
import type { Principal } from './principal.js';
import { InvalidTokenError, TokenVerifier } from './tokens/token-verifier.js';
import { ProvisioningService } from './users/provisioning.service.js';

/** Global guard: every route needs a valid bearer token unless marked @Public(); @Roles() then checks org roles. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: TokenVerifier,
    private readonly provisioning: ProvisioningService,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const req = ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; principal?: Principal }>();
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new UnauthorizedException('missing bearer token (Authorization: Bearer <JWT>)');
    let principal: Principal;
    try {
      principal = await this.provisioning.principalFor(await this.verifier.verify(match[1]));
    } catch (err) {
      if (err instanceof InvalidTokenError) throw new UnauthorizedException(err.message);
      throw err;
    }
    req.principal = principal;
    const required = this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_ROLES, targets);
    if (required?.length && !required.some((r) => principal.roles.includes(r))) {
      throw new ForbiddenException(`this action needs the ${required.join(' or ')} role`);
    }
    return true;
  }
}
