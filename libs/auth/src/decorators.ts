import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Principal } from './principal.js';

export const IS_PUBLIC = 'warden:public';
export const REQUIRED_ROLES = 'warden:roles';

/** Route needs no bearer token (health, docs, chat-app callbacks that carry their own signature). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
/** Route needs one of these org roles. */
export const Roles = (...roles: string[]) => SetMetadata(REQUIRED_ROLES, roles);

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return ctx.switchToHttp().getRequest<{ principal: Principal }>().principal;
});
