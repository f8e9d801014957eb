import { DomainErrorKind, DomainException } from './domain.exception.js';

/** RFC 7644 §3.12 error detail types. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A SCIM request the service provider refuses, with the RFC's `scimType` where one applies. */
export class ScimError extends DomainException {
  constructor(kind: DomainErrorKind, message: string, scimType?: ScimType) {
    super(kind, message, scimType ? { scimType } : undefined);
  }
}

/** The SCIM error body (RFC 7644 §3.12): `status` is a string, `scimType` only when known. */
export function scimErrorBody(status: number, detail: string, scimType?: unknown): Record<string, unknown> {
  return {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(status),
    ...(typeof scimType === 'string' ? { scimType } : {}),
    detail,
  };
}
