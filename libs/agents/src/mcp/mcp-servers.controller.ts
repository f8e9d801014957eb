import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { McpServerDto, McpServerResponse } from './dto/mcp-server.dto.js';
import { McpServersService } from './mcp-servers.service.js';

@ApiTags('mcp-servers')
@ApiBearerAuth()
@Roles('admin')
@Controller('mcp-servers')
export class McpServersController {
  constructor(private readonly servers: McpServersService) {}

  @Post()
  @ApiCreatedResponse({ type: McpServerResponse })
  create(@CurrentPrincipal() p: Principal, @Body() dto: McpServerDto) {
    return this.servers.create(p.orgId, dto, p.userId);
  }

  @Get()
  @ApiOkResponse({ type: [McpServerResponse] })
  list(@CurrentPrincipal() p: Principal) {
    return this.servers.list(p.orgId);
  }

  @Get(':id')
  @ApiOkResponse({ type: McpServerResponse })
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.servers.get(p.orgId, id);
  }

  @Put(':id')
  @ApiOkResponse({ type: McpServerResponse })
  update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() dto: McpServerDto) {
    return this.servers.update(p.orgId, id, dto, p.userId);
  }

  @Delete(':id')
  @ApiNoContentResponse()
  @HttpCode(204)
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.servers.remove(p.orgId, id, p.userId);
  }
}
