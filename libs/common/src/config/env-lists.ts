// How list-valued environment variables are written (comma lists, key=value pairs, NAME / PREFIX_* patterns): one
// reading for every setting, so they all accept the same spacing and empty entries.

/** `a, b,,c` as ['a', 'b', 'c']: entries trimmed, empty ones dropped; none when unset. */
export function commaList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * `key=value,key2=value2` as an object; values are URI-decoded and may contain `=`; pairs without a key are dropped.
 */
export function keyValuePairs(raw: string | undefined): Record<string, string> {
  const pairs = (raw ?? '')
    .split(',')
    .map((p) => p.split('='))
    .filter((kv) => kv.length >= 2 && kv[0].trim());
  return Object.fromEntries(pairs.map(([k, ...v]) => [k.trim(), decodeURIComponent(v.join('=').trim())]));
}

/** Whether `name` matches one of `patterns`: a `NAME` exactly, or a `PREFIX_*` with something after the prefix. */
export function matchesNamePattern(patterns: string[], name: string): boolean {
  return patterns.some((p) =>
    p.endsWith('*') ? name.startsWith(p.slice(0, -1)) && name.length > p.length - 1 : name === p,
  );
}
