import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthController } from './auth.controller.js';
import { AuthGuard } from './auth.guard.js';
import { DevSignInController } from './dev/dev-sign-in.controller.js';
import { Org } from './orgs/org.entity.js';
import { OrgsService } from './orgs/orgs.service.js';
import { TokenVerifier } from './tokens/token-verifier.js';
import { ProvisioningService } from './users/provisioning.service.js';
import { Identity, OrgMember, User } from './users/user.entity.js';
import { UsersService } from './users/users.service.js';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([Org, User, OrgMember, Identity])],
  controllers: [AuthController, DevSignInController],
  providers: [TokenVerifier, ProvisioningService, OrgsService, UsersService, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [OrgsService, UsersService, ProvisioningService, TokenVerifier],
})
export class AuthModule {}
