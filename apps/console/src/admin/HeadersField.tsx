import { Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';

export interface HeaderRow {
  name: string;
  value: string;
}

/** Rows with a name become the request's headers; an empty list means "send none". */
export function headersOf(rows: HeaderRow[]): Record<string, string> {
  return Object.fromEntries(rows.filter((r) => r.name.trim()).map((r) => [r.name.trim(), r.value]));
}

/**
 * Auth headers are write-only: values are typed, sent once, stored encrypted and never shown again. When editing,
 * `storedKeys` lists the names already stored; leaving every row empty keeps them (`replacing` is false).
 */
export function HeadersField({
  rows,
  onChange,
  storedKeys,
  note,
}: {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  storedKeys?: string[];
  note?: string;
}) {
  const set = (i: number, patch: Partial<HeaderRow>) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        Auth headers (write-only)
      </Text>
      <Text size="xs" c="dimmed">
        {storedKeys?.length
          ? `Stored: ${storedKeys.join(', ')} (values never shown). ` +
            'Leave the rows empty to keep them; headers typed here replace them all.'
          : 'Sent on every request, e.g. Authorization: Bearer …; stored encrypted and never shown again.'}
      </Text>
      {note && (
        <Text size="xs" c="orange" role="note">
          {note}
        </Text>
      )}
      {rows.map((r, i) => (
        <Group key={i} grow align="flex-end">
          <TextInput
            label={`Header name ${i + 1}`}
            value={r.name}
            autoComplete="off"
            onChange={(e) => set(i, { name: e.currentTarget.value })}
          />
          <PasswordInput
            label={`Header value ${i + 1}`}
            value={r.value}
            autoComplete="new-password"
            visibilityToggleButtonProps={{ 'aria-label': `Reveal typed value, row ${i + 1}` }}
            onChange={(e) => set(i, { value: e.currentTarget.value })}
          />
        </Group>
      ))}
      <Group>
        <Button size="xs" variant="subtle" onClick={() => onChange([...rows, { name: '', value: '' }])}>
          Add header
        </Button>
      </Group>
    </Stack>
  );
}

/** True when the form's headers would replace the stored ones (any row with a name). */
export const replacingHeaders = (rows: HeaderRow[]) => rows.some((r) => r.name.trim() !== '');

/** Scheme, host and port of a URL, or null when it does not parse (secrets are bound to it). */
export function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** Stored header values never come back: a new origin must be given its headers again (the API refuses otherwise). */
export function originChangeNote(
  before: string,
  after: string,
  storedKeys: string[],
  rows: HeaderRow[],
): string | undefined {
  const moved = originOf(after) !== null && originOf(after) !== originOf(before);
  if (!moved || !storedKeys.length || replacingHeaders(rows)) return undefined;
  return (
    `The address now points to another origin (${originOf(after)}): ` +
    `enter the headers again (${storedKeys.join(', ')}); the stored values are only sent to ${originOf(before)}.`
  );
}
