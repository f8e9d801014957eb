import { Badge, Checkbox, Stack, Table, Text, TextInput } from '@mantine/core';
import type { Schemas } from '../api/typed';
import { celProblem } from './cel';

/** An admin's override of one tool, by its name on the server (what PUT /api/mcp-servers/{id} takes). */
export interface ToolOverride {
  requires_confirmation?: boolean;
  requires_confirmation_when?: string;
  write?: boolean;
}
export type Overrides = Record<string, ToolOverride>;

/** Stored overrides as the form edits them (unknown keys dropped). */
export function overridesOf(raw: Record<string, unknown>): Overrides {
  return Object.fromEntries(Object.entries(raw).map(([tool, o]) => [tool, { ...(o as ToolOverride) }]));
}

/** Only what is set is sent: an empty condition or an unticked box means "the server's annotations decide". */
export function cleanOverrides(overrides: Overrides): Overrides {
  const clean: Overrides = {};
  for (const [tool, o] of Object.entries(overrides)) {
    const entry: ToolOverride = {
      ...(o.requires_confirmation ? { requires_confirmation: true } : {}),
      ...(o.requires_confirmation_when?.trim() ? { requires_confirmation_when: o.requires_confirmation_when } : {}),
      ...(o.write !== undefined ? { write: o.write } : {}),
    };
    if (Object.keys(entry).length) clean[tool] = entry;
  }
  return clean;
}

export const overridesInvalid = (overrides: Overrides) =>
  Object.values(overrides).some((o) => celProblem(o.requires_confirmation_when ?? '') !== null);

function confirmation(t: Schemas['McpToolResponse']): string {
  if (t.requires_confirmation) return 'always';
  return t.requires_confirmation_when ?? 'never';
}

/** The tools the server offers (as discovered), what applies to each now, and the admin's override fields. */
export function McpToolOverrides({
  server,
  overrides,
  onChange,
}: {
  server: Schemas['McpServerResponse'];
  overrides: Overrides;
  onChange: (o: Overrides) => void;
}) {
  const set = (tool: string, patch: ToolOverride) =>
    onChange({ ...overrides, [tool]: { ...overrides[tool], ...patch } });
  if (!server.tools.length)
    return <Text c="dimmed">No tools discovered{server.error ? `: ${server.error}` : ''}.</Text>;
  return (
    <Table aria-label={`Tools of ${server.name}`} verticalSpacing="xs">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Tool</Table.Th>
          <Table.Th>Kind</Table.Th>
          <Table.Th>Asks for confirmation</Table.Th>
          <Table.Th>Override</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {server.tools.map((t) => {
          const o = overrides[t.tool] ?? {};
          return (
            <Table.Tr key={t.name}>
              <Table.Td>
                <Text ff="monospace" fw={600} size="sm">
                  {t.name}
                </Text>
                <Text size="xs" c="dimmed">
                  {t.description}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color={t.write ? 'orange' : 'gray'}>
                  {t.write ? 'write' : 'read'}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Text ff="monospace" size="sm">
                  {confirmation(t)}
                </Text>
              </Table.Td>
              <Table.Td>
                <Stack gap={4}>
                  <Checkbox
                    size="xs"
                    label={`Always confirm ${t.tool}`}
                    checked={!!o.requires_confirmation}
                    onChange={(e) => set(t.tool, { requires_confirmation: e.currentTarget.checked })}
                  />
                  <TextInput
                    size="xs"
                    label={`Requires confirmation when (CEL) for ${t.tool}`}
                    placeholder="args.amount > 50000"
                    styles={{ input: { fontFamily: 'monospace' } }}
                    value={o.requires_confirmation_when ?? ''}
                    error={celProblem(o.requires_confirmation_when ?? '')}
                    onChange={(e) => set(t.tool, { requires_confirmation_when: e.currentTarget.value })}
                  />
                </Stack>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
