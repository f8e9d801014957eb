/** `<connector>__<action>`, lower-case, every non-alphanumeric character becomes `_`. */
export function toolNameOf(connector: string, action: string): string {
  const part = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '_');
  return `${part(connector)}__${part(action)}`;
}

/** `*` matches any run of characters, `?` one character; everything else literally. */
export function globMatches(pattern: string, name: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === name;
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(name);
}
