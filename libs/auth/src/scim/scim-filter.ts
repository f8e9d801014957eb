import { DomainErrorKind, ScimError } from '@warden/common';

/** One equality test, the only filter Okta and Entra ID send for provisioning (`userName eq "a@b.c"`). */
export interface ScimEquality {
  /** The attribute as the resource type names it (case-insensitive per RFC 7644 §3.4.2.2). */
  attribute: string;
  value: string;
}

const FILTER = /^\s*([A-Za-z][\w.]*)\s+(eq)\s+"((?:[^"\\]|\\.)*)"\s*$/i;

/**
 * Parses `attr eq "value"` for one of `attributes` (matched case-insensitively, returned as listed). Anything else —
 * another operator, an unknown attribute, a value that is not a string — is a 400 `invalidFilter`, never a guess.
 */
export function parseScimFilter(filter: string | undefined, attributes: readonly string[]): ScimEquality | null {
  if (filter === undefined || filter.trim() === '') return null;
  if (filter.length > 1000) throw invalidFilter('the filter is longer than 1000 characters');
  const match = FILTER.exec(filter);
  if (!match) {
    throw invalidFilter(
      `unsupported filter "${filter}": use attribute eq "value" with one of ${attributes.join(', ')}`,
    );
  }
  const attribute = attributes.find((a) => a.toLowerCase() === match[1].toLowerCase());
  if (!attribute) throw invalidFilter(`cannot filter on "${match[1]}": use one of ${attributes.join(', ')}`);
  let value: string;
  try {
    value = JSON.parse(`"${match[3]}"`) as string;
  } catch {
    throw invalidFilter(`the value in filter "${filter}" is not a valid string`);
  }
  return { attribute, value };
}

const invalidFilter = (message: string) => new ScimError(DomainErrorKind.BadInput, message, 'invalidFilter');

/** startIndex (1-based) and count from the query string; RFC 7644 §3.4.2.4: bad values are treated leniently. */
export function scimPage(startIndex: unknown, count: unknown, max = 200): { offset: number; limit: number } {
  const start = typeof startIndex === 'string' ? Number.parseInt(startIndex, 10) : 1;
  const size = typeof count === 'string' ? Number.parseInt(count, 10) : max;
  return {
    offset: Number.isFinite(start) && start > 1 ? start - 1 : 0,
    limit: Number.isFinite(size) ? Math.min(Math.max(size, 0), max) : max,
  };
}
