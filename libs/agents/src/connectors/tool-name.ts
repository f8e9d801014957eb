/** `<connector>__<action>`, lower-case, every non-alphanumeric character becomes `_`. */
export function toolNameOf(connector: string, action: string): string {
  const part = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '_');
  return `${part(connector)}__${part(action)}`;
}

/** `*` matches any run of characters, `?` one character; everything else literally (no regex: see @warden/common). */
export { globMatches } from '@warden/common';
