export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const SCIM_CONTENT_TYPE = 'application/scim+json';

/** A SCIM ListResponse (RFC 7644 §3.4.2). */
export function listResponse(resources: unknown[], total: number, offset: number): Record<string, unknown> {
  return {
    schemas: [LIST_SCHEMA],
    totalResults: total,
    startIndex: offset + 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/** What this service provider supports (RFC 7643 §5), so Okta and Entra ID know to PATCH and to filter with `eq`. */
export const SERVICE_PROVIDER_CONFIG = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
  documentationUri: 'https://github.com/warden/warden#scim-provisioning',
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: 200 },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'OAuth Bearer Token',
      description: 'A per-org token from POST /api/org/scim-tokens',
      primary: true,
    },
  ],
};

const resourceType = (name: 'User' | 'Group', schema: string) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
  id: name,
  name,
  endpoint: `/${name}s`,
  schema,
  meta: { resourceType: 'ResourceType', location: `/scim/v2/ResourceTypes/${name}` },
});

export const RESOURCE_TYPES = [
  resourceType('User', 'urn:ietf:params:scim:schemas:core:2.0:User'),
  resourceType('Group', 'urn:ietf:params:scim:schemas:core:2.0:Group'),
];

const attribute = (name: string, type = 'string', extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

export const SCHEMAS = [
  {
    id: 'urn:ietf:params:scim:schemas:core:2.0:User',
    name: 'User',
    attributes: [
      attribute('userName', 'string', { required: true, uniqueness: 'server' }),
      attribute('externalId'),
      attribute('displayName'),
      attribute('name', 'complex'),
      attribute('emails', 'complex', { multiValued: true }),
      attribute('active', 'boolean'),
      attribute('groups', 'complex', { multiValued: true, mutability: 'readOnly' }),
    ],
  },
  {
    id: 'urn:ietf:params:scim:schemas:core:2.0:Group',
    name: 'Group',
    attributes: [
      attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
      attribute('externalId'),
      attribute('members', 'complex', { multiValued: true }),
    ],
  },
];
