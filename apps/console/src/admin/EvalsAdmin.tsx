import { Anchor, Badge, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { data, http } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';
import { useAgentOptions } from './audit-options';
import { EvalForm } from './EvalForm';

export const EVAL_STATUS_COLOR: Record<string, string> = {
  completed: 'green',
  running: 'blue',
  failed: 'red',
  interrupted: 'orange',
};

/** The eval center: start an eval of an agent over cases, and the org's evals with their pass counts. */
export function EvalsAdmin() {
  const agents = useAgentOptions();
  const evals = useQuery({
    queryKey: ['evals'],
    queryFn: () => data(http.GET('/api/evals')),
    refetchInterval: (q) => (q.state.data?.some((e) => e.status === 'running') ? 1000 : false),
  });
  const agentName = (id: string) => agents.find((a) => a.value === id)?.label ?? id;
  return (
    <Stack maw={1100}>
      <Title order={1} size="h2">
        Evals
      </Title>
      <Text size="sm" c="dimmed">
        An eval runs an agent over test cases with its own hooks bypassed: writes are simulated from the fixtures and
        never sent; the organisation&apos;s hooks still apply.
      </Text>
      <EvalForm agents={agents} />
      <Title order={3}>Past evals</Title>
      <ErrorAlert error={evals.error} what="The evals could not be loaded" />
      {evals.data?.length === 0 && <Text c="dimmed">No evals yet.</Text>}
      <Table.ScrollContainer minWidth={640}>
        <Table striped aria-label="Evals">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Started</Table.Th>
              <Table.Th>Agent</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Passed</Table.Th>
              <Table.Th>Results</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(evals.data ?? []).map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td>{new Date(e.created_at).toLocaleString()}</Table.Td>
                <Table.Td>{agentName(e.agent_id)}</Table.Td>
                <Table.Td>
                  <Badge color={EVAL_STATUS_COLOR[e.status] ?? 'gray'}>{e.status}</Badge>
                </Table.Td>
                <Table.Td>
                  {e.passed} of {e.total}
                  {e.done < e.total ? ` (${e.done} run)` : ''}
                </Table.Td>
                <Table.Td>
                  <Anchor component={Link} to={`/admin/evals/${e.id}`}>
                    Open eval of {new Date(e.created_at).toLocaleTimeString()}
                  </Anchor>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
