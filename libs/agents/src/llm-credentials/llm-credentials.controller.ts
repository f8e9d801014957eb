import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { CreateLlmCredentialDto, UpdateLlmCredentialDto } from './dto/llm-credential.dto.js';
import { LlmCredentialResponse } from './dto/llm-credential.response.js';
import { LlmCredentialsService } from './llm-credentials.service.js';
import type { LlmCredentialRow } from './llm-credentials.store.js';

const view = (c: LlmCredentialRow): LlmCredentialResponse => ({
  id: c.id,
  name: c.name,
  origin: c.origin,
  created_at: c.createdAt.toISOString(),
  created_by: c.createdBy,
});

/** Model API keys of the org (admin): stored encrypted, write-only, named by agents through their id. */
@ApiTags('llm-credentials')
@ApiBearerAuth()
@Roles('admin')
@Controller('llm-credentials')
export class LlmCredentialsController {
  constructor(private readonly credentials: LlmCredentialsService) {}

  @Post()
  @ApiCreatedResponse({ type: LlmCredentialResponse })
  async create(@CurrentPrincipal() p: Principal, @Body() dto: CreateLlmCredentialDto): Promise<LlmCredentialResponse> {
    return view(
      await this.credentials.create(p.orgId, p.userId, { name: dto.name, origin: dto.origin, apiKey: dto.api_key }),
    );
  }

  /** Renames or re-binds a credential; moving it to another origin requires its key again (400 naming api_key). */
  @Put(':id')
  @ApiOkResponse({ type: LlmCredentialResponse })
  async update(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() dto: UpdateLlmCredentialDto,
  ): Promise<LlmCredentialResponse> {
    return view(
      await this.credentials.update(p.orgId, id, p.userId, { name: dto.name, origin: dto.origin, apiKey: dto.api_key }),
    );
  }

  @Get()
  @ApiOkResponse({ type: [LlmCredentialResponse] })
  async list(@CurrentPrincipal() p: Principal): Promise<LlmCredentialResponse[]> {
    return (await this.credentials.list(p.orgId)).map(view);
  }

  @Delete(':id')
  @ApiNoContentResponse()
  @HttpCode(204)
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.credentials.remove(p.orgId, id, p.userId);
  }
}
