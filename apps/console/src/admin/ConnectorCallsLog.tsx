import { Badge, Group, Pagination, Select, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { data, http } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';
import { ExportButtons } from './ExportButtons';
import { exportCalls, isoOf, type CallsQuery } from './audit-export';
import { useAgentOptions, useMemberOptions } from './audit-options';

const PAGE = 25;

/**
 * The connector call log: filtered by the server (agent, tool, user, from, blocked);
 * the export streams the whole range.
 */
export function ConnectorCallsLog() {
  const agents = useAgentOptions();
  const members = useMemberOptions();
  const [agentId, setAgentId] = useState<string | null>(null);
  const [userId, setUserId] = useState<string | null>(null);
  const [toolTyped, setTool] = useState('');
  const [tool] = useDebouncedValue(toolTyped.trim(), 300);
  const [from, setFrom] = useState('');
  const [blockedOnly, setBlockedOnly] = useState(false);
  const [page, setPage] = useState(1);
  const query: CallsQuery = {
    ...(agentId ? { agent_id: agentId } : {}),
    ...(userId ? { user_id: userId } : {}),
    ...(tool ? { tool } : {}),
    ...(from ? { from: isoOf(from) } : {}),
    ...(blockedOnly ? { outcome: 'blocked' as const } : {}),
  };
  const rows = useQuery({
    queryKey: ['audit', 'calls', query],
    queryFn: () => data(http.GET('/api/audit/connector-calls', { params: { query: { ...query, limit: 500 } } })),
  });
  const shown = rows.data ?? [];
  const pages = Math.max(1, Math.ceil(shown.length / PAGE));
  return (
    <Stack>
      <Group align="flex-end">
        <Select label="Agent" clearable data={agents} value={agentId} onChange={setAgentId} />
        <Select label="User" clearable searchable data={members} value={userId} onChange={setUserId} />
        <TextInput label="Tool" value={toolTyped} onChange={(e) => setTool(e.currentTarget.value)} />
        <TextInput label="From" type="datetime-local" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        <Switch label="Blocked only" checked={blockedOnly} onChange={(e) => setBlockedOnly(e.currentTarget.checked)} />
        <ExportButtons what="connector calls" run={(format) => exportCalls(query, format)} />
      </Group>
      <Text size="xs" c="dimmed">
        The newest 500 matching calls are listed; the export has every call that matches.
      </Text>
      <ErrorAlert error={rows.error} what="The audit log could not be loaded" />
      {rows.data && shown.length === 0 && <Text c="dimmed">No connector calls match.</Text>}
      <Table.ScrollContainer minWidth={900}>
        <Table striped aria-label="Connector calls">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>When</Table.Th>
              <Table.Th>Tool</Table.Th>
              <Table.Th>Request</Table.Th>
              <Table.Th>Result</Table.Th>
              <Table.Th>ms</Table.Th>
              <Table.Th>Run</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.slice((page - 1) * PAGE, page * PAGE).map((r) => (
              <Table.Tr key={r.id}>
                <Table.Td>{new Date(r.created_at).toLocaleString()}</Table.Td>
                <Table.Td ff="monospace">{r.tool}</Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace">
                    {r.method} {r.url}
                  </Text>
                </Table.Td>
                <Table.Td>
                  {r.blocked_by ? (
                    <Badge color="red">blocked by {r.blocked_by}</Badge>
                  ) : (
                    <Badge color={r.success ? 'green' : 'red'}>{r.status ?? (r.success ? 'ok' : 'failed')}</Badge>
                  )}
                </Table.Td>
                <Table.Td>{r.duration_ms ?? ''}</Table.Td>
                <Table.Td>{r.run_id && <Link to={`/admin/runs/${r.run_id}`}>trace</Link>}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {pages > 1 && <Pagination total={pages} value={page} onChange={setPage} />}
    </Stack>
  );
}
