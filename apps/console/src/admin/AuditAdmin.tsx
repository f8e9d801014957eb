import { Badge, Button, Group, Pagination, Select, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { data, http, type Schemas } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';
import { asText } from '../ui/as-text';

type AuditRow = Schemas['ConnectorCallResponse'];
const COLUMNS: Array<keyof AuditRow> = [
  'created_at',
  'tool',
  'method',
  'url',
  'status',
  'success',
  'blocked_by',
  'duration_ms',
  'agent_id',
  'user_id',
  'run_id',
  'error',
];
const PAGE = 25;

const csvCell = (v: unknown) => {
  const s = asText(v ?? '');
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
export const toCsv = (rows: AuditRow[]) =>
  [COLUMNS.join(','), ...rows.map((r) => COLUMNS.map((c) => csvCell(r[c])).join(','))].join('\r\n') + '\r\n';

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The connector call log: filter by agent, tool, user, date and blocked; page; export what is shown as CSV. */
export function AuditAdmin() {
  const agents = useQuery({ queryKey: ['agents'], queryFn: () => data(http.GET('/api/agents')) });
  const [agentId, setAgentId] = useState<string | null>(null);
  const [tool, setTool] = useState('');
  const [user, setUser] = useState('');
  const [from, setFrom] = useState('');
  const [blockedOnly, setBlockedOnly] = useState(false);
  const [page, setPage] = useState(1);
  const rows = useQuery({
    queryKey: ['audit', agentId],
    queryFn: () =>
      data(http.GET('/api/audit/connector-calls', { params: { query: { limit: 500, ...(agentId ? { agent_id: agentId } : {}) } } })),
  });
  const shown = (rows.data ?? []).filter(
    (r) =>
      (!tool || r.tool.includes(tool)) &&
      (!user || (r.user_id ?? '').includes(user)) &&
      (!from || r.created_at >= from) &&
      (!blockedOnly || !!r.blocked_by),
  );
  const pages = Math.max(1, Math.ceil(shown.length / PAGE));
  return (
    <Stack>
      <Title order={1} size="h2">
        Audit log
      </Title>
      <Group align="flex-end">
        <Select
          label="Agent"
          clearable
          data={(agents.data ?? []).map((a) => ({ value: a.id, label: a.name }))}
          value={agentId}
          onChange={setAgentId}
        />
        <TextInput label="Tool" value={tool} onChange={(e) => setTool(e.currentTarget.value)} />
        <TextInput label="User id" value={user} onChange={(e) => setUser(e.currentTarget.value)} />
        <TextInput label="From (date)" type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        <Switch label="Blocked only" checked={blockedOnly} onChange={(e) => setBlockedOnly(e.currentTarget.checked)} />
        <Button variant="default" onClick={() => download('connector-calls.csv', toCsv(shown))} disabled={shown.length === 0}>
          Export CSV
        </Button>
      </Group>
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
