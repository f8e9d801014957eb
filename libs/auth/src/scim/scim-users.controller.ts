import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AppConfig } from '@warden/common';
import { Public } from '../decorators.js';
import { ScimAuthGuard } from './scim-auth.guard.js';
import { ScimCaller } from './scim-caller.js';
import { parseScimFilter, scimPage } from './scim-filter.js';
import { listResponse, SCIM_CONTENT_TYPE } from './scim-list.js';
import { patchOperations } from './scim-patch.js';
import { renderUser, userFromBody } from './scim-user.js';
import { ScimUsersService, USER_FILTER_ATTRIBUTES } from './scim-users.service.js';
import type { ScimActor } from './scim-writes.js';

/**
 * SCIM 2.0 Users (RFC 7644), as Okta and Entra ID provision them. Errors are SCIM error bodies (AllExceptionsFilter).
 */
@ApiExcludeController()
@Public()
@UseGuards(ScimAuthGuard)
@Controller('scim/v2/Users')
export class ScimUsersController {
  constructor(
    private readonly users: ScimUsersService,
    private readonly config: AppConfig,
  ) {}

  private get base(): string {
    return `${this.config.publicUrl.replace(/\/$/, '')}/scim/v2`;
  }

  @Get()
  @Header('content-type', SCIM_CONTENT_TYPE)
  async list(@ScimCaller() a: ScimActor, @Query() q: Record<string, unknown>) {
    const filter = parseScimFilter(typeof q.filter === 'string' ? q.filter : undefined, USER_FILTER_ATTRIBUTES);
    const page = scimPage(q.startIndex, q.count);
    const { total, users } = await this.users.list(a.orgId, filter, page);
    return listResponse(
      users.map((u) => renderUser(u, this.base)),
      total,
      page.offset,
    );
  }

  @Get(':id')
  @Header('content-type', SCIM_CONTENT_TYPE)
  async get(@ScimCaller() a: ScimActor, @Param('id') id: string) {
    return renderUser(await this.users.get(a.orgId, id), this.base);
  }

  @Post()
  @HttpCode(201)
  @Header('content-type', SCIM_CONTENT_TYPE)
  async create(@ScimCaller() a: ScimActor, @Body() body: unknown) {
    return renderUser(await this.users.create(a, userFromBody(body)), this.base);
  }

  @Put(':id')
  @Header('content-type', SCIM_CONTENT_TYPE)
  async replace(@ScimCaller() a: ScimActor, @Param('id') id: string, @Body() body: unknown) {
    return renderUser(await this.users.replace(a, id, userFromBody(body)), this.base);
  }

  @Patch(':id')
  @Header('content-type', SCIM_CONTENT_TYPE)
  async patch(@ScimCaller() a: ScimActor, @Param('id') id: string, @Body() body: unknown) {
    return renderUser(await this.users.patch(a, id, patchOperations(body)), this.base);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@ScimCaller() a: ScimActor, @Param('id') id: string): Promise<void> {
    await this.users.remove(a, id);
  }
}
