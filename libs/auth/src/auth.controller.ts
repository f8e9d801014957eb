import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ForbiddenError } from '@warden/common';
import { CurrentPrincipal, Roles } from './decorators.js';
import { SetIdentitiesDto, SetReadOnlyDto } from './dto/identities.dto.js';
import { OrgsService } from './orgs/orgs.service.js';
import { isAdmin, type Principal } from './principal.js';
import { IDENTITY_FIELDS, UsersService, type MemberView } from './users/users.service.js';
import {
  MeResponse,
  MemberResponse,
  OrgResponse,
  ReadOnlyResponse,
  IdentityAuditResponse,
} from './dto/auth.response.js';

const identitiesView = (m: MemberView) => ({
  feishu_open_id: m.identities.feishu ?? null,
  slack_user_id: m.identities.slack ?? null,
  wecom_user_id: m.identities.wecom ?? null,
});
const memberView = (m: MemberView) => ({
  user_id: m.userId,
  sub: m.sub,
  email: m.email,
  name: m.name,
  roles: m.roles,
  identities: identitiesView(m),
});

@ApiTags('auth')
@ApiBearerAuth()
@Controller()
export class AuthController {
  constructor(
    private readonly users: UsersService,
    private readonly orgs: OrgsService,
  ) {}

  @Get('me')
  @ApiOkResponse({ type: MeResponse })
  async me(@CurrentPrincipal() p: Principal) {
    const m = await this.users.memberBySub(p.orgId, p.sub);
    return {
      user_id: p.userId,
      sub: p.sub,
      org_id: p.orgId,
      org: p.orgExternalId,
      roles: p.roles,
      email: m.email,
      name: m.name,
      identities: identitiesView(m),
    };
  }

  @Get('users')
  @ApiOkResponse({ type: [MemberResponse] })
  async list(@CurrentPrincipal() p: Principal) {
    return (await this.users.listMembers(p.orgId)).map(memberView);
  }

  @Get('users/:sub')
  @ApiOkResponse({ type: MemberResponse })
  async one(@CurrentPrincipal() p: Principal, @Param('sub') sub: string) {
    return memberView(await this.users.memberBySub(p.orgId, sub));
  }

  /**
   * An admin links or unlinks anyone's chat accounts; a member may only unlink their own (null values). Linking
   * oneself needs proof of owning the account: POST /api/me/identities/link, then /verify with the code it sent.
   */
  @Put('users/:sub/identities')
  @ApiOkResponse({ type: MemberResponse })
  async setIdentities(@CurrentPrincipal() p: Principal, @Param('sub') sub: string, @Body() body: SetIdentitiesDto) {
    // Existence is checked first, so a user of another org is a 404 even for a non-admin.
    await this.users.memberBySub(p.orgId, sub);
    if (!isAdmin(p) && p.sub !== sub) throw new ForbiddenError('only an admin can link chat accounts of another user');
    const links = Object.fromEntries(
      Object.entries(IDENTITY_FIELDS)
        .filter(([field]) => (body as Record<string, unknown>)[field] !== undefined)
        .map(([field, platform]) => [platform, (body as Record<string, string | null>)[field]]),
    );
    if (!isAdmin(p) && Object.values(links).some((v) => v !== null)) {
      throw new ForbiddenError(
        'linking a chat account needs proof that it is yours: ' +
          'POST /api/me/identities/link sends a one-time code to it, ' +
          'then POST /api/me/identities/verify with that code (or ask an admin)',
      );
    }
    return memberView(
      await this.users.setIdentities(p.orgId, sub, links, {
        byUserId: p.userId,
        method: isAdmin(p) ? 'admin' : 'self',
      }),
    );
  }

  @Get('audit/identities')
  @Roles('admin')
  @ApiOkResponse({ type: [IdentityAuditResponse] })
  async identityAudit(@CurrentPrincipal() p: Principal) {
    return (await this.users.identityAudit(p.orgId)).map((r) => ({
      ...r,
      created_at: new Date(r.created_at).toISOString(),
    }));
  }

  @Get('org')
  @ApiOkResponse({ type: OrgResponse })
  async org(@CurrentPrincipal() p: Principal) {
    const org = await this.orgs.get(p.orgId);
    return {
      id: org.id,
      external_id: org.externalId,
      name: org.name,
      read_only: org.readOnly,
      default_channel_id: org.defaultChannelId,
    };
  }

  @Put('org/read-only')
  @ApiOkResponse({ type: ReadOnlyResponse })
  @Roles('admin')
  async setReadOnly(@CurrentPrincipal() p: Principal, @Body() body: SetReadOnlyDto) {
    const org = await this.orgs.setReadOnly(p.orgId, body.read_only, p.userId);
    return { id: org.id, read_only: org.readOnly };
  }
}
