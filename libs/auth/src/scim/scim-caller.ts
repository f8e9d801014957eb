import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { ScimRequest } from './scim-auth.guard.js';
import type { ScimActor } from './scim-writes.js';

/** The org and SCIM token of the request (set by ScimAuthGuard). */
export const ScimCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): ScimActor => {
  const actor = ctx.switchToHttp().getRequest<ScimRequest>().scim;
  if (!actor) throw new Error('ScimCaller used on a route without ScimAuthGuard');
  return actor;
});
