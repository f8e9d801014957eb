import { Anchor, Badge, List, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router-dom';
import { data, http } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';
import { EVAL_STATUS_COLOR } from './EvalsAdmin';

/** One eval: its status, live while it runs, and each case's result (answer, failures, tool calls, the run's trace). */
export function EvalDetail() {
  const { evalId = '' } = useParams();
  const ev = useQuery({
    queryKey: ['evals', evalId],
    queryFn: () => data(http.GET('/api/evals/{id}', { params: { path: { id: evalId } } })),
    refetchInterval: (q) => (q.state.data?.status === 'running' ? 1000 : false),
  });
  if (ev.error) return <ErrorAlert error={ev.error} what="The eval could not be loaded" />;
  if (!ev.data) return <Text c="dimmed">Loading…</Text>;
  const e = ev.data;
  return (
    <Stack maw={1100}>
      <Title order={1} size="h2">
        Eval results
      </Title>
      <Text role="status" data-testid="eval-status" data-status={e.status}>
        <Badge color={EVAL_STATUS_COLOR[e.status] ?? 'gray'}>{e.status}</Badge> · {e.passed} of {e.total} cases passed ·
        reads {e.reads} · hooks {e.hooks}
        {e.error ? ` · ${e.error}` : ''}
      </Text>
      <Anchor component={Link} to="/admin/evals">
        All evals
      </Anchor>
      <Table.ScrollContainer minWidth={760}>
        <Table striped aria-label="Case results">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>#</Table.Th>
              <Table.Th>Message</Table.Th>
              <Table.Th>Result</Table.Th>
              <Table.Th>Answer</Table.Th>
              <Table.Th>Tool calls</Table.Th>
              <Table.Th>Trace</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {e.results.map((r, i) => (
              <Table.Tr key={r.run_id} data-testid="eval-case" data-passed={String(r.passed)}>
                <Table.Td>{i + 1}</Table.Td>
                <Table.Td>{r.input}</Table.Td>
                <Table.Td>
                  <Badge color={r.passed ? 'green' : 'red'}>{r.passed ? 'passed' : 'failed'}</Badge>
                  {(r.failures ?? (r.error ? [r.error] : [])).length > 0 && (
                    <List size="xs">
                      {(r.failures ?? [r.error ?? '']).map((f) => (
                        <List.Item key={f}>{f}</List.Item>
                      ))}
                    </List>
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{r.output ?? '—'}</Text>
                </Table.Td>
                <Table.Td>
                  {r.tool_calls.map((c, j) => (
                    <Text key={j} size="xs" ff="monospace">
                      {c.tool} {JSON.stringify(c.args)} · {c.simulated ? 'simulated' : 'sent'} · {c.status}
                    </Text>
                  ))}
                </Table.Td>
                <Table.Td>
                  <Anchor component={Link} to={`/admin/runs/${r.run_id}`}>
                    case {i + 1} trace
                  </Anchor>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {e.status === 'running' && <Text c="dimmed">{e.total - e.results.length} case(s) still to run…</Text>}
    </Stack>
  );
}
