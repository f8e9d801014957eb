import { Anchor, Badge, Paper, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { data, http } from '../../api/typed';
import { ErrorAlert } from '../../ui/ErrorAlert';

export const RUN_COLORS: Record<string, string> = {
  completed: 'green',
  failed: 'red',
  cancelled: 'gray',
  waiting: 'orange',
  running: 'blue',
};

/** The workflow's past runs (yours; an admin's list has everyone's), newest first, each a link to its canvas. */
export function RunsList({ workflowId }: { workflowId: string }) {
  const runs = useQuery({
    queryKey: ['workflow-runs', workflowId],
    queryFn: () => data(http.GET('/api/workflows/{id}/runs', { params: { path: { id: workflowId } } })),
  });
  return (
    <Paper withBorder p="sm" component="section" aria-label="Past runs">
      <Title order={3} size="h4">
        Past runs
      </Title>
      <ErrorAlert error={runs.error} what="The runs could not be loaded" />
      {runs.data?.length === 0 && (
        <Text size="sm" c="gray.7">
          No runs yet.
        </Text>
      )}
      {!!runs.data?.length && (
        <Table aria-label="Past runs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Started</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Problem</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {runs.data.map((r) => (
              <Table.Tr key={r.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/workflows/${workflowId}/runs/${r.id}`}>
                    {new Date(r.created_at).toLocaleString()}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Badge color={RUN_COLORS[r.status] ?? 'gray'} variant="light">
                    {r.status}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" lineClamp={2}>
                    {r.error ?? ''}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
