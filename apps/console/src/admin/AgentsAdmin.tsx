import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { data, http } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';

export { AgentEditor } from './agent/AgentEditor';

export function AgentsAdmin() {
  const agents = useQuery({ queryKey: ['agents'], queryFn: () => data(http.GET('/api/agents')) });
  return (
    <Stack maw={900}>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Agents
        </Title>
        <Button component={Link} to="/admin/agents/new">
          New agent
        </Button>
      </Group>
      <ErrorAlert error={agents.error} what="Agents could not be loaded" />
      {agents.data?.length === 0 && <Text c="dimmed">No agents yet: create one.</Text>}
      <Table aria-label="Agents">
        <Table.Tbody>
          {agents.data?.map((a) => (
            <Table.Tr key={a.id}>
              <Table.Td fw={600}>{a.name}</Table.Td>
              <Table.Td>{(a.model_config_json.model as { model?: string } | null | undefined)?.model ?? ''}</Table.Td>
              <Table.Td>
                <Button
                  size="xs"
                  variant="light"
                  component={Link}
                  to={`/admin/agents/${a.id}`}
                  aria-label={`Edit ${a.name}`}
                >
                  Edit
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
