import { Badge, NavLink, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { data, http } from '../api/typed';

const STATUS_COLOR: Record<string, string> = { completed: 'green', 'in progress': 'blue', cancelled: 'gray' };
// A run waiting for approval is still in progress; which of the two it is right now shows in the chat itself.
const label = (status: string) => (status === 'running' || status === 'waiting' ? 'in progress' : status);

/** The member's past conversations with this agent (from the server: any session, any device), newest first. */
export function ConversationHistory({
  agentId,
  activeId,
  refreshKey,
}: {
  agentId: string;
  activeId?: string;
  refreshKey: string;
}) {
  const list = useQuery({
    queryKey: ['conversations', agentId, refreshKey],
    queryFn: () => data(http.GET('/api/conversations', { params: { query: { agent_id: agentId } } })),
  });
  return (
    <Stack gap={4} component="nav" aria-label="Past conversations">
      <Title order={4}>Past conversations</Title>
      {list.error && (
        <Text size="sm" c="red" role="alert">
          History could not be loaded: {list.error.message}. Reload the page to try again.
        </Text>
      )}
      {list.data?.length === 0 && (
        <Text size="sm" c="dimmed" data-testid="history-empty">
          No past conversations with this agent yet. Send a message to start one.
        </Text>
      )}
      {list.data?.map((c) => (
        <NavLink
          key={c.id}
          component={Link}
          to={`/portal/chat/${agentId}/${c.id}`}
          active={c.id === activeId}
          aria-current={c.id === activeId ? 'page' : undefined}
          label={
            <Text size="sm" lineClamp={1}>
              {c.title}
            </Text>
          }
          description={`${new Date(c.last_activity_at).toLocaleString()} · ${messages(c.run_count)}`}
          rightSection={
            <Badge size="xs" variant="light" color={STATUS_COLOR[label(c.last_status)] ?? 'red'}>
              {label(c.last_status)}
            </Badge>
          }
        />
      ))}
    </Stack>
  );
}

/** "1 message", "3 messages". */
function messages(count: number): string {
  return `${count} message${count === 1 ? '' : 's'}`;
}
