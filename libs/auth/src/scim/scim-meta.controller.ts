import { Controller, Get, Header, Param, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DomainErrorKind, ScimError } from '@warden/common';
import { Public } from '../decorators.js';
import { ScimAuthGuard } from './scim-auth.guard.js';
import { listResponse, RESOURCE_TYPES, SCHEMAS, SCIM_CONTENT_TYPE, SERVICE_PROVIDER_CONFIG } from './scim-list.js';

/** Discovery (RFC 7644 §4): what the identity provider reads before provisioning. */
@ApiExcludeController()
@Public()
@UseGuards(ScimAuthGuard)
@Controller('scim/v2')
export class ScimMetaController {
  @Get('ServiceProviderConfig')
  @Header('content-type', SCIM_CONTENT_TYPE)
  config() {
    return SERVICE_PROVIDER_CONFIG;
  }

  @Get('ResourceTypes')
  @Header('content-type', SCIM_CONTENT_TYPE)
  resourceTypes() {
    return listResponse(RESOURCE_TYPES, RESOURCE_TYPES.length, 0);
  }

  @Get('Schemas')
  @Header('content-type', SCIM_CONTENT_TYPE)
  schemas() {
    return listResponse(SCHEMAS, SCHEMAS.length, 0);
  }

  @Get('Schemas/:id')
  @Header('content-type', SCIM_CONTENT_TYPE)
  schema(@Param('id') id: string) {
    const found = SCHEMAS.find((s) => s.id === id);
    if (!found) throw new ScimError(DomainErrorKind.NotFound, `schema ${id} not found`);
    return found;
  }
}
