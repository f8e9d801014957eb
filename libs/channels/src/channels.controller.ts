import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { ChannelsService } from './channels.service.js';
import { CreateChannelDto, UpdateChannelDto } from './dto/channel.dto.js';
import { ChannelResponse, ChannelTestResponse } from './dto/channel.response.js';

/** Channel administration (API.md "Channels"). Secrets go in, never come out. */
@ApiTags('channels')
@ApiBearerAuth()
@Roles('admin')
@Controller('channels')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Post()
  @ApiCreatedResponse({ type: ChannelResponse })
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateChannelDto) {
    return this.channels.create(
      p.orgId,
      { type: body.type, name: body.name, config: body.config, isDefault: body.is_default },
      p.userId,
    );
  }

  @Get()
  @ApiOkResponse({ type: [ChannelResponse] })
  list(@CurrentPrincipal() p: Principal) {
    return this.channels.list(p.orgId);
  }

  @Get(':id')
  @ApiOkResponse({ type: ChannelResponse })
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.channels.get(p.orgId, id);
  }

  @Put(':id')
  @ApiOkResponse({ type: ChannelResponse })
  update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: UpdateChannelDto) {
    return this.channels.update(
      p.orgId,
      id,
      { name: body.name, config: body.config, isDefault: body.is_default },
      p.userId,
    );
  }

  @Delete(':id')
  @ApiNoContentResponse()
  @HttpCode(204)
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.channels.remove(p.orgId, id, p.userId);
  }

  @Post(':id/test')
  @ApiOkResponse({ type: ChannelTestResponse })
  @HttpCode(200)
  test(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.channels.sendTest(p.orgId, id, { userId: p.userId, name: p.name ?? p.sub });
  }
}
