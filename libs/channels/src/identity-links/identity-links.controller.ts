import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, IdentityLinkedResponse, IdentityLinkStartedResponse, type Principal } from '@warden/auth';
import { StartLinkDto, VerifyLinkDto } from './identity-links.dto.js';
import { IdentityLinksService } from './identity-links.service.js';

/** Linking one's own chat account, with proof: a one-time code goes to that account, and comes back here. */
@ApiTags('auth')
@ApiBearerAuth()
@Controller('me/identities')
export class IdentityLinksController {
  constructor(private readonly links: IdentityLinksService) {}

  @Post('link')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: IdentityLinkStartedResponse })
  start(@CurrentPrincipal() p: Principal, @Body() body: StartLinkDto) {
    return this.links.start(p, {
      platform: body.platform,
      externalId: body.external_id.trim(),
      channelId: body.channel_id,
    });
  }

  @Post('verify')
  @HttpCode(200)
  @ApiOkResponse({ type: IdentityLinkedResponse })
  verify(@CurrentPrincipal() p: Principal, @Body() body: VerifyLinkDto) {
    return this.links.verify(p, body.link_id, body.code);
  }
}
