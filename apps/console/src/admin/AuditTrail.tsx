import { Button, Group, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { data, http } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';
import { AuditEventDetail } from './AuditEventDetail';
import { ChainVerify } from './ChainVerify';
import { ExportButtons } from './ExportButtons';
import { exportTrail, isoOf, type TrailQuery } from './audit-export';
import { useAgentOptions, useMemberOptions } from './audit-options';

const KINDS = [
  { value: 'connector_call', label: 'Connector calls' },
  { value: 'config', label: 'Configuration changes' },
  { value: 'confirmation', label: 'Approvals' },
  { value: 'identity', label: 'Identity links' },
];
const PAGE = 100;

/** The hash-chained trail: filtered by time range, kind, agent and user; verified; exported whole by the server. */
export function AuditTrail() {
  const agents = useAgentOptions();
  const members = useMemberOptions();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [kind, setKind] = useState<string | null>(null);
  const [agentId, setAgentId] = useState<string | null>(null);
  const [actor, setActor] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const query: TrailQuery = {
    ...(from ? { from: isoOf(from) } : {}),
    ...(to ? { to: isoOf(to) } : {}),
    ...(kind ? { kind: kind as TrailQuery['kind'] } : {}),
    ...(agentId ? { agent_id: agentId } : {}),
    ...(actor ? { actor } : {}),
  };
  const events = useInfiniteQuery({
    queryKey: ['audit', 'events', query],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      data(
        http.GET('/api/audit/events', {
          params: { query: { ...query, limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const rows = events.data?.pages.flatMap((p) => p.items) ?? [];
  const nameOf = (id: string | null) => members.find((m) => m.value === id)?.label ?? id ?? 'system';
  return (
    <Stack>
      <Group align="flex-end">
        <TextInput label="From" type="datetime-local" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        <TextInput
          label="To (before)"
          type="datetime-local"
          value={to}
          onChange={(e) => setTo(e.currentTarget.value)}
        />
        <Select label="Kind" clearable data={KINDS} value={kind} onChange={setKind} />
        <Select label="Agent" clearable searchable data={agents} value={agentId} onChange={setAgentId} />
        <Select label="User" clearable searchable data={members} value={actor} onChange={setActor} />
        <ExportButtons what="audit trail" run={(format) => exportTrail(query, format)} />
      </Group>
      <ChainVerify from={query.from} to={query.to} />
      <ErrorAlert error={events.error} what="The audit trail could not be loaded" />
      {events.isSuccess && rows.length === 0 && <Text c="dimmed">No audit events match.</Text>}
      <Table.ScrollContainer minWidth={800}>
        <Table striped aria-label="Audit events">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>#</Table.Th>
              <Table.Th>When</Table.Th>
              <Table.Th>Event</Table.Th>
              <Table.Th>About</Table.Th>
              <Table.Th>By</Table.Th>
              <Table.Th>Detail</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((e) => (
              <Fragment key={e.id}>
                <Table.Tr data-action={e.action}>
                  <Table.Td>{e.seq}</Table.Td>
                  <Table.Td>{new Date(e.occurred_at).toLocaleString()}</Table.Td>
                  <Table.Td ff="monospace">{e.action}</Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace">
                      {e.entity_type ? `${e.entity_type} ${e.entity_id ?? ''}` : ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>{nameOf(e.actor)}</Table.Td>
                  <Table.Td>
                    {/* The default variant (dark on white, gray 0 under the pointer), as "Load older events":
                        a subtle or light one is below AA on a striped row and under the pointer
                        (blue 9 on blue 3: 4.0:1). */}
                    <Button size="compact-xs" variant="default" onClick={() => setOpen(open === e.id ? null : e.id)}>
                      {open === e.id ? 'Hide' : 'Show'} #{e.seq}
                    </Button>
                  </Table.Td>
                </Table.Tr>
                {open === e.id && (
                  <Table.Tr>
                    <Table.Td colSpan={6}>
                      <AuditEventDetail event={e} />
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group>
        <Text size="sm" c="dimmed" role="status">
          {rows.length} event{rows.length === 1 ? '' : 's'} loaded{events.hasNextPage ? '; older ones remain' : ''}
        </Text>
        {events.hasNextPage && (
          <Button variant="default" loading={events.isFetchingNextPage} onClick={() => void events.fetchNextPage()}>
            Load older events
          </Button>
        )}
      </Group>
    </Stack>
  );
}
