import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { ConnectorsService } from './connectors.service.js';
import { ConnectorDto } from './dto/connector.dto.js';
import { ConnectorResponse } from './dto/connector.response.js';

@ApiTags('connectors')
@ApiBearerAuth()
@Roles('admin')
@Controller('connectors')
export class ConnectorsController {
  constructor(private readonly connectors: ConnectorsService) {}

  @Post()
  @ApiCreatedResponse({ type: ConnectorResponse })
  create(@CurrentPrincipal() p: Principal, @Body() dto: ConnectorDto) {
    return this.connectors.create(p.orgId, dto, p.userId);
  }

  @Get()
  @ApiOkResponse({ type: [ConnectorResponse] })
  list(@CurrentPrincipal() p: Principal) {
    return this.connectors.list(p.orgId);
  }

  @Get(':id')
  @ApiOkResponse({ type: ConnectorResponse })
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.connectors.get(p.orgId, id);
  }

  @Put(':id')
  @ApiOkResponse({ type: ConnectorResponse })
  update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() dto: ConnectorDto) {
    return this.connectors.update(p.orgId, id, dto, p.userId);
  }

  @Delete(':id')
  @ApiNoContentResponse()
  @HttpCode(204)
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.connectors.remove(p.orgId, id, p.userId);
  }
}
