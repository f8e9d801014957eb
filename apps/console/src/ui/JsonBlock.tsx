import { Code } from '@mantine/core';

export function JsonBlock({ value, label }: { value: unknown; label?: string }) {
  return (
    <Code block aria-label={label} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
      {JSON.stringify(value, null, 2)}
    </Code>
  );
}

/** Args with the fields a decider looks at first (amounts, ids) on top. */
export function decisiveFirst(args: Record<string, unknown> | null | undefined): Array<[string, unknown]> {
  const rank = (k: string) => (/amount|total|price|sum/i.test(k) ? 0 : /^id$|_id$|number|po/i.test(k) ? 1 : 2);
  return Object.entries(args ?? {}).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}
