import { Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { data, http, type Schemas } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';

export type AgentSummary = Schemas['AgentResponse'];

/** Portal home: the org's agents, each a way into a chat. */
export function AgentsList() {
  const agents = useQuery({ queryKey: ['agents'], queryFn: () => data(http.GET('/api/agents')) });
  return (
    <Stack>
      <Title order={1} size="h2">
        Agents
      </Title>
      <ErrorAlert error={agents.error} what="Agents could not be loaded" />
      {agents.data?.length === 0 && <Text c="dimmed">No agents yet. An admin creates them under Agents.</Text>}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {agents.data?.map((a) => (
          <Card key={a.id} withBorder>
            <Text fw={600}>{a.name}</Text>
            <Text size="sm" c="dimmed" lineClamp={3}>
              {a.instructions}
            </Text>
            <Group mt="sm">
              <Button component={Link} to={`/portal/chat/${a.id}`} aria-label={`Chat with ${a.name}`}>
                Chat
              </Button>
            </Group>
          </Card>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
