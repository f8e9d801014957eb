import { Badge, Code, Stack, Table, Text } from '@mantine/core';
import type { Schemas } from '../api/typed';
import { JsonBlock } from '../ui/JsonBlock';

type AuditEvent = Schemas['AuditEventResponse'];
interface Change {
  path: string;
  before?: unknown;
  after?: unknown;
  secret_changed?: boolean;
}

const show = (v: unknown) => (v === undefined || v === null ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * A configuration change as a diff: each changed path with its value before and after; a secret only says it changed.
 */
function ConfigDiff({ changes }: { changes: Change[] }) {
  if (changes.length === 0)
    return <Text size="sm">No field-level changes recorded (created or deleted: see the values below).</Text>;
  return (
    <Table aria-label="Changes" withTableBorder verticalSpacing={4}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Setting</Table.Th>
          <Table.Th>Before</Table.Th>
          <Table.Th>After</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {changes.map((c) => (
          <Table.Tr key={c.path} data-path={c.path}>
            <Table.Td ff="monospace">{c.path}</Table.Td>
            {c.secret_changed ? (
              <Table.Td colSpan={2}>
                <Badge color="orange" variant="light">
                  secret changed (values are never recorded)
                </Badge>
              </Table.Td>
            ) : (
              <>
                <Table.Td>
                  <Text size="xs" ff="monospace" c="red.9" td="line-through" style={{ wordBreak: 'break-word' }}>
                    {show(c.before)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace" c="green.9" style={{ wordBreak: 'break-word' }}>
                    {show(c.after)}
                  </Text>
                </Table.Td>
              </>
            )}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/**
 * One audit event opened: a config change's diff, an approval's decision, or the payload; and the hashes binding it.
 */
export function AuditEventDetail({ event }: { event: AuditEvent }) {
  const p = event.payload;
  const changes = Array.isArray(p.changes) ? (p.changes as Change[]) : null;
  return (
    <Stack gap="xs" data-testid="audit-event-detail">
      {event.kind === 'config' && changes && <ConfigDiff changes={changes} />}
      {event.kind === 'confirmation' && (
        <Text size="sm">
          {show(p.tool)} · {show(p.decision ?? event.action)}
          {p.decided_by_name ? ` by ${show(p.decided_by_name)}` : ''}
          {p.by_name ? ` by ${show(p.by_name)} to ${show(p.to)}` : ''}
          {p.reason ? ` — “${show(p.reason)}”` : ''}
        </Text>
      )}
      <JsonBlock value={event.kind === 'config' ? { before: p.before, after: p.after } : p} />
      <Text size="xs" c="dimmed">
        prev_hash <Code>{event.prev_hash.slice(0, 16)}…</Code> hash <Code>{event.hash.slice(0, 16)}…</Code>
      </Text>
    </Stack>
  );
}
