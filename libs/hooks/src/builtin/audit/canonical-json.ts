import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal args always give the same text (and digest). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const src = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(src).sort().map((k) => [k, sortKeys(src[k])]));
  }
  return value;
}

export function argsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

/** What an approval is bound to: the tool and the exact args that will be sent (DESIGN.md "the gate"). */
export function actionDigest(tool: string, args: unknown): string {
  return createHash('sha256').update(tool).update('\n').update(canonicalJson(args)).digest('hex');
}
