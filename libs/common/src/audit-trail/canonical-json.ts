/** JSON with object keys sorted at every level, so equal values always give the same text (and digest). */
export function canonicalJson(value: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined for undefined, functions, symbols
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const src = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(src)
        .sort()
        .map((k) => [k, sortKeys(src[k])]),
    );
  }
  return value;
}
