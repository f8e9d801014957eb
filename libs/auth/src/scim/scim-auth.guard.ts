import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainErrorKind, ScimError } from '@warden/common';
import { ScimTokensService } from './scim-tokens.service.js';
import type { ScimActor } from './scim-writes.js';

export interface ScimRequest {
  headers: Record<string, string | undefined>;
  scim?: ScimActor;
}

/** SCIM routes take the org's SCIM bearer token (not a user's JWT): it names the org every change applies to. */
@Injectable()
export class ScimAuthGuard implements CanActivate {
  constructor(private readonly tokens: ScimTokensService) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<ScimRequest>();
    const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const actor = match && match[1].length <= 200 ? await this.tokens.resolve(match[1]) : null;
    if (!actor) {
      throw new ScimError(
        DomainErrorKind.Unauthenticated,
        'a valid SCIM bearer token is required (POST /api/org/scim-tokens creates one)',
      );
    }
    req.scim = actor;
    return true;
  }
}
