import { DomainErrorKind, ScimError } from '@warden/common';

export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** One PATCH operation, its `op` lower-cased (Entra ID sends `Replace`, Okta `replace`). */
export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: string;
  value?: unknown;
}

export const invalidSyntax = (message: string) => new ScimError(DomainErrorKind.BadInput, message, 'invalidSyntax');
export const invalidValue = (message: string) => new ScimError(DomainErrorKind.BadInput, message, 'invalidValue');
export const invalidPath = (message: string) => new ScimError(DomainErrorKind.BadInput, message, 'invalidPath');

/** The `Operations` of a PatchOp body (RFC 7644 §3.5.2), checked for shape: anything else is `invalidSyntax`. */
export function patchOperations(body: unknown): PatchOperation[] {
  if (!isObject(body)) throw invalidSyntax('the PATCH body must be a JSON object');
  const schemas = body.schemas;
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_OP_SCHEMA)) {
    throw invalidSyntax(`a PATCH body names the schema ${PATCH_OP_SCHEMA}`);
  }
  const ops = body.Operations ?? body.operations;
  if (!Array.isArray(ops) || ops.length === 0) throw invalidSyntax('a PATCH body has a non-empty Operations array');
  if (ops.length > 1000) throw invalidSyntax('a PATCH body has at most 1000 operations');
  return ops.map((raw, i) => {
    if (!isObject(raw)) throw invalidSyntax(`Operations[${i}] must be an object`);
    const op = typeof raw.op === 'string' ? raw.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw invalidSyntax(`Operations[${i}].op must be add, replace or remove`);
    }
    if (raw.path !== undefined && (typeof raw.path !== 'string' || raw.path.trim() === '')) {
      throw invalidPath(`Operations[${i}].path must be a non-empty string`);
    }
    if (op === 'remove' && raw.path === undefined)
      throw new ScimError(DomainErrorKind.BadInput, 'remove needs a path', 'noTarget');
    if (op !== 'remove' && raw.value === undefined) throw invalidValue(`Operations[${i}] (${op}) needs a value`);
    return { op, path: raw.path, value: raw.value };
  });
}

/** Entra ID sends booleans as the strings "True" / "False" (before its `aadOptscim062020` flag); both are accepted. */
export function scimBoolean(value: unknown, what: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`${what} must be a boolean`);
}

/** A required, non-empty string attribute. */
export function requiredString(value: unknown, what: string, max = 500): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalidValue(`${what} must be a non-empty string`);
  if (value.length > max) throw invalidValue(`${what} is longer than ${max} characters`);
  return value;
}

export function scimString(
  value: unknown,
  what: string,
  opts: { nullable?: boolean; max?: number } = {},
): string | null {
  if (value === null && opts.nullable) return null;
  if (typeof value !== 'string' || (!opts.nullable && value.trim() === ''))
    throw invalidValue(`${what} must be a non-empty string`);
  if (value.length > (opts.max ?? 500)) throw invalidValue(`${what} is longer than ${opts.max ?? 500} characters`);
  return value;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Attribute names are case-insensitive (RFC 7643 §2.1): finds `name` among an object's keys whatever its case. */
export function attr(o: Record<string, unknown>, name: string): unknown {
  const key = Object.keys(o).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : o[key];
}
