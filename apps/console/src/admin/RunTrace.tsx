import { Alert, Badge, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router-dom';
import { data, http } from '../api/typed';

/** One run's timeline: tool calls, each hook with its outcome and duration, approvals, observations. */
export function RunTrace() {
  const { runId = '' } = useParams();
  const run = useQuery({ queryKey: ['run', runId], queryFn: () => data(http.GET('/api/runs/{id}', { params: { path: { id: runId } } })), refetchInterval: (q) => (q.state.data?.status === 'running' || q.state.data?.status === 'waiting' ? 1000 : false) });
  if (run.error) return <Alert color="red" role="alert">{run.error.message}</Alert>;
  if (!run.data) return <Text c="dimmed">Loading…</Text>;
  return (
    <Stack>
      <Title order={2}>Run trace</Title>
      <Text size="sm">Run <Text span ff="monospace">{run.data.id}</Text> · <Badge>{run.data.status}</Badge> · surface {run.data.surface}</Text>
      <Table striped aria-label="Trace">
        <Table.Thead><Table.Tr><Table.Th>#</Table.Th><Table.Th>Event</Table.Th><Table.Th>Detail</Table.Th></Table.Tr></Table.Thead>
        <Table.Tbody>
          {run.data.trace.map((t, i) => {
            const type = String(t.type ?? '');
            // Trace entries are { seq, type, ...event data, at }: their shape depends on the type.
            const d = t as Record<string, any>;
            const detail = type === 'hook' ? `${d.hook} · ${d.point} · ${d.outcome}${d.duration_ms !== undefined ? ` · ${d.duration_ms} ms` : ''}`
              : type === 'tool_call' ? `${d.tool} ${JSON.stringify(d.args)}`
              : type === 'observation' ? `${d.tool}: ${String(d.content ?? '').slice(0, 200)}`
              : JSON.stringify(d).slice(0, 240);
            return <Table.Tr key={i}><Table.Td>{i + 1}</Table.Td><Table.Td ff="monospace">{type}</Table.Td><Table.Td><Text size="xs" ff="monospace">{detail}</Text></Table.Td></Table.Tr>;
          })}
        </Table.Tbody>
      </Table>
      {run.data.answer && <Text>Answer: {run.data.answer}</Text>}
    </Stack>
  );
}
