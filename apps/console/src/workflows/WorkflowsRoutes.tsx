import { Anchor, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, Route, Routes } from 'react-router-dom';
import { data, http } from '../api/typed';
import { useSession } from '../auth/SessionContext';
import { isBuilder } from '../auth/session';
import { ErrorAlert } from '../ui/ErrorAlert';
import { WorkflowDesigner } from './designer/WorkflowDesigner';
import { asDefinition } from './graph';
import { WorkflowRunView } from './runs/WorkflowRunView';

function WorkflowsList() {
  const { session } = useSession();
  const canBuild = isBuilder(session);
  const list = useQuery({ queryKey: ['workflows'], queryFn: () => data(http.GET('/api/workflows')) });
  return (
    <Stack maw={800}>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Workflows
        </Title>
        {canBuild && (
          <Button component={Link} to="/workflows/new" color="blue.8">
            New workflow
          </Button>
        )}
      </Group>
      <ErrorAlert error={list.error} what="Workflows could not be loaded" />
      {list.data?.length === 0 && (
        <Text c="gray.7">No workflows yet{canBuild ? ': create one.' : '. A designer draws them.'}</Text>
      )}
      <Table aria-label="Workflows">
        <Table.Tbody>
          {list.data?.map((w) => (
            <Table.Tr key={w.id}>
              <Table.Td>
                <Anchor component={Link} to={`/workflows/${w.id}`}>
                  {w.name}
                </Anchor>
              </Table.Td>
              <Table.Td>{asDefinition(w.definition)?.nodes.length ?? 0} nodes</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

export function WorkflowsRoutes() {
  return (
    <Routes>
      <Route index element={<WorkflowsList />} />
      <Route path=":workflowId" element={<WorkflowDesigner />} />
      <Route path=":workflowId/runs/:runId" element={<WorkflowRunView />} />
    </Routes>
  );
}
