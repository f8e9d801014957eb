import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthController } from './auth.controller.js';
import { AuthGuard } from './auth.guard.js';
import { DevSignInController } from './dev/dev-sign-in.controller.js';
import { Org } from './orgs/org.entity.js';
import { OrgsService } from './orgs/orgs.service.js';
import { ScimAuthGuard } from './scim/scim-auth.guard.js';
import { ScimGroupsController } from './scim/scim-groups.controller.js';
import { ScimGroupsService } from './scim/scim-groups.service.js';
import { ScimMetaController } from './scim/scim-meta.controller.js';
import { ScimTokensController } from './scim/scim-tokens.controller.js';
import { ScimTokensService } from './scim/scim-tokens.service.js';
import { ScimUsersController } from './scim/scim-users.controller.js';
import { ScimUsersService } from './scim/scim-users.service.js';
import { ScimGroup, ScimGroupMember, ScimToken } from './scim/scim.entity.js';
import { TokenVerifier } from './tokens/token-verifier.js';
import { ProvisioningService } from './users/provisioning.service.js';
import { Identity, OrgMember, User } from './users/user.entity.js';
import { UsersService } from './users/users.service.js';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([Org, User, OrgMember, Identity, ScimToken, ScimGroup, ScimGroupMember])],
  controllers: [
    AuthController,
    DevSignInController,
    ScimTokensController,
    ScimUsersController,
    ScimGroupsController,
    ScimMetaController,
  ],
  providers: [
    TokenVerifier,
    ProvisioningService,
    OrgsService,
    UsersService,
    ScimTokensService,
    ScimUsersService,
    ScimGroupsService,
    ScimAuthGuard,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [OrgsService, UsersService, ProvisioningService, TokenVerifier],
})
export class AuthModule {}
