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
import { groupFromBody, renderGroup } from './scim-group.js';
import { GROUP_FILTER_ATTRIBUTES, ScimGroupsService } from './scim-groups.service.js';
import { listResponse, SCIM_CONTENT_TYPE } from './scim-list.js';
import { patchOperations } from './scim-patch.js';
import type { ScimActor } from './scim-writes.js';

/** SCIM 2.0 Groups: a group's display name is the role its members hold (approver policies `role:<name>`). */
@ApiExcludeController()
@Public()
@UseGuards(ScimAuthGuard)
@Controller('scim/v2/Groups')
export class ScimGroupsController {
  constructor(
    private readonly groups: ScimGroupsService,
    private readonly config: AppConfig,
  ) {}

  private get base(): string {
    return `${this.config.publicUrl.replace(/\/$/, '')}/scim/v2`;
  }

  @Get()
  @Header('content-type', SCIM_CONTENT_TYPE)
  async list(@ScimCaller() a: ScimActor, @Query() q: Record<string, unknown>) {
    const filter = parseScimFilter(typeof q.filter === 'string' ? q.filter : undefined, GROUP_FILTER_ATTRIBUTES);
    const page = scimPage(q.startIndex, q.count);
    // Entra ID asks `excludedAttributes=members` when it only checks that a group exists.
    const excluded = typeof q.excludedAttributes === 'string' ? q.excludedAttributes : '';
    const withMembers = !excluded.toLowerCase().split(',').includes('members');
    const { total, groups } = await this.groups.list(a.orgId, filter, page);
    return listResponse(
      groups.map((g) => renderGroup(g, this.base, withMembers)),
      total,
      page.offset,
    );
  }

  @Get(':id')
  @Header('content-type', SCIM_CONTENT_TYPE)
  async get(@ScimCaller() a: ScimActor, @Param('id') id: string) {
    return renderGroup(await this.groups.get(a.orgId, id), this.base);
  }

  @Post()
  @HttpCode(201)
  @Header('content-type', SCIM_CONTENT_TYPE)
  async create(@ScimCaller() a: ScimActor, @Body() body: unknown) {
    return renderGroup(await this.groups.create(a, groupFromBody(body)), this.base);
  }

  @Put(':id')
  @Header('content-type', SCIM_CONTENT_TYPE)
  async replace(@ScimCaller() a: ScimActor, @Param('id') id: string, @Body() body: unknown) {
    return renderGroup(await this.groups.replace(a, id, groupFromBody(body)), this.base);
  }

  @Patch(':id')
  @Header('content-type', SCIM_CONTENT_TYPE)
  async patch(@ScimCaller() a: ScimActor, @Param('id') id: string, @Body() body: unknown) {
    return renderGroup(await this.groups.patch(a, id, patchOperations(body)), this.base);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@ScimCaller() a: ScimActor, @Param('id') id: string): Promise<void> {
    await this.groups.remove(a, id);
  }
}
