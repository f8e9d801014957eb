import { Alert, Badge, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router-dom';
import { data, http } from '../api/typed';
import { traceTimeline } from './trace-timeline';

const OUTCOME_COLOR: Record<string, string> = {
  allow: 'green',
  done: 'green',
  approved: 'green',
  answered: 'green',
  rewrite: 'yellow',
  pending: 'orange',
};

/** One run's timeline: model turns, tool calls, each hook with its outcome and duration, approvals, observations. */
export function RunTrace() {
  const { runId = '' } = useParams();
  const run = useQuery({
    queryKey: ['run', runId],
    queryFn: () => data(http.GET('/api/runs/{id}', { params: { path: { id: runId } } })),
    refetchInterval: (q) => (q.state.data?.status === 'running' || q.state.data?.status === 'waiting' ? 1000 : false),
  });
  if (run.error)
    return (
      <Alert color="red" role="alert">
        {run.error.message}. Check the run id, or open the run from the audit log.
      </Alert>
    );
  if (!run.data) return <Text c="dimmed">Loading…</Text>;
  const steps = traceTimeline(run.data.trace, run.data.answer);
  return (
    <Stack>
      <Title order={1} size="h2">
        Run trace
      </Title>
      <Text size="sm">
        Run{' '}
        <Text span ff="monospace">
          {run.data.id}
        </Text>{' '}
        · <Badge>{run.data.status}</Badge> · surface {run.data.surface} · “{run.data.message}”
      </Text>
      {steps.length === 0 && <Text c="dimmed">Nothing happened in this run yet.</Text>}
      <Table.ScrollContainer minWidth={640}>
        <Table striped aria-label="Trace">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>#</Table.Th>
              <Table.Th>Step</Table.Th>
              <Table.Th>What</Table.Th>
              <Table.Th>Outcome</Table.Th>
              <Table.Th>Duration</Table.Th>
              <Table.Th>Detail</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {steps.map((s, i) => (
              <Table.Tr key={i} data-kind={s.kind}>
                <Table.Td>{i + 1}</Table.Td>
                <Table.Td>{s.kind}</Table.Td>
                <Table.Td ff="monospace">{s.title}</Table.Td>
                <Table.Td>
                  {s.outcome && (
                    <Badge variant="light" color={OUTCOME_COLOR[s.outcome] ?? 'red'}>
                      {s.outcome}
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td>{s.durationMs !== undefined ? `${s.durationMs} ms` : ''}</Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace" style={{ wordBreak: 'break-word' }}>
                    {s.detail ?? ''}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
