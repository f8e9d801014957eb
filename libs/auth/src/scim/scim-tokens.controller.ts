import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles } from '../decorators.js';
import { CreatedScimTokenResponse, CreateScimTokenDto, ScimTokenResponse } from '../dto/scim-token.dto.js';
import type { Principal } from '../principal.js';
import { ScimTokensService } from './scim-tokens.service.js';

/** Admins create the bearer token their identity provider provisions the org with (SCIM 2.0 at /scim/v2). */
@ApiTags('auth')
@ApiBearerAuth()
@Controller('org/scim-tokens')
@Roles('admin')
export class ScimTokensController {
  constructor(private readonly tokens: ScimTokensService) {}

  @Post()
  @ApiCreatedResponse({ type: CreatedScimTokenResponse })
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateScimTokenDto) {
    return this.tokens.create(p.orgId, p.userId, body.label ?? null);
  }

  @Get()
  @ApiOkResponse({ type: [ScimTokenResponse] })
  list(@CurrentPrincipal() p: Principal) {
    return this.tokens.list(p.orgId);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOkResponse({ type: ScimTokenResponse })
  revoke(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.tokens.revoke(p.orgId, id, p.userId);
  }
}
