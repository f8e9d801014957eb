import { Alert, Anchor, Button, Grid, Group, Loader, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useState, type SyntheticEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { data, http } from '../api/typed';
import { useSession } from '../auth/SessionContext';
import { isAdmin } from '../auth/session';
import { toastError } from '../ui/errors';
import { ConversationHistory } from './ConversationHistory';
import { foldRun } from './run-model';
import { HookLine, ToolCallCard } from './ToolCallCard';
import { useConversation, type Turn } from './useConversation';

function TurnView({
  turn,
  onCancel,
  traceLinks,
}: {
  turn: Turn;
  onCancel: (runId: string) => void;
  traceLinks: boolean;
}) {
  const run = foldRun(turn.events);
  const live = !run.status && !turn.failed;
  const { runId } = run;
  return (
    <Stack gap="xs" data-testid="turn" data-status={run.status ?? 'live'}>
      <Paper p="sm" bg="blue.0" style={{ alignSelf: 'flex-end', maxWidth: '85%' }}>
        <Text>{turn.message}</Text>
      </Paper>
      {run.sessionHooks.map((h, i) => (
        <HookLine key={i} h={h} />
      ))}
      {run.calls.map((c) => (
        <ToolCallCard key={c.callId} call={c} />
      ))}
      {run.answer && (
        <Paper p="sm" withBorder data-testid="answer">
          <Text style={{ whiteSpace: 'pre-wrap' }}>{run.answer}</Text>
        </Paper>
      )}
      {run.errors.map((e, i) => (
        <Alert key={i} color="red">
          {e}
        </Alert>
      ))}
      {turn.failed && (
        <Alert color="red" role="alert">
          The stream stopped: {turn.failed}. Reload the page to reattach to the run.
        </Alert>
      )}
      <Group gap="xs">
        {live ? (
          <>
            <Loader size="xs" aria-hidden />
            <Text size="xs" c="dimmed">
              Running…
            </Text>
          </>
        ) : (
          <Text size="xs" c="dimmed">
            Run {run.status ?? 'interrupted'}
          </Text>
        )}
        {live && runId && (
          <Button size="compact-xs" variant="subtle" color="red" onClick={() => onCancel(runId)}>
            Cancel run
          </Button>
        )}
        {traceLinks && run.runId && (
          <Anchor size="xs" component={Link} to={`/admin/runs/${run.runId}`}>
            Trace
          </Anchor>
        )}
      </Group>
    </Stack>
  );
}

/**
 * Portal chat with one agent: past conversations, messages, each run streamed live with its tool calls, hooks and
 * approvals.
 */
export function ChatView() {
  const { agentId = '', conversationId } = useParams();
  const navigate = useNavigate();
  const { session } = useSession();
  const agent = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => data(http.GET('/api/agents/{id}', { params: { path: { id: agentId } } })),
  });
  const onStarted = useCallback(
    (id: string) => void navigate(`/portal/chat/${agentId}/${id}`, { replace: true }),
    [agentId, navigate],
  );
  const { conv, loadError, send, cancel } = useConversation(agentId, conversationId, onStarted);
  const [draft, setDraft] = useState('');
  const lastTurn = conv.turns.at(-1);
  const lastRun = lastTurn ? foldRun(lastTurn.events) : null;
  const busy = !!lastTurn && !!lastRun && !lastRun.status && !lastTurn.failed;

  function submit(e: SyntheticEvent) {
    e.preventDefault();
    if (!draft.trim() || busy) return;
    void send(draft.trim());
    setDraft('');
  }

  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, md: 8 }}>
        <Stack maw={900}>
          <Group justify="space-between">
            <Title order={1} size="h2">
              {agent.data?.name ?? 'Chat'}
            </Title>
            {/* A link cannot be disabled: until there is a conversation it is a disabled button (no stop for Tab). */}
            {conversationId ? (
              <Button variant="default" size="xs" component={Link} to={`/portal/chat/${agentId}`}>
                New conversation
              </Button>
            ) : (
              <Button variant="default" size="xs" disabled>
                New conversation
              </Button>
            )}
          </Group>
          {agent.error && (
            <Alert color="red" role="alert">
              {agent.error.message}. Go back to the Portal and pick another agent.
            </Alert>
          )}
          {loadError && (
            <Alert color="red" role="alert">
              This conversation could not be opened: {loadError}. Pick another one, or start a new conversation.
            </Alert>
          )}
          {conv.turns.length === 0 && !loadError && (
            <Text c="dimmed" data-testid="chat-empty">
              {conversationId ? 'Loading the conversation…' : 'Ask the agent something to start.'}
            </Text>
          )}
          {conv.turns.map((t, i) => (
            <TurnView
              key={i}
              turn={t}
              traceLinks={isAdmin(session)}
              onCancel={(id) => void cancel(id).catch((err: unknown) => toastError('The run was not cancelled', err))}
            />
          ))}
          {conv.readOnly ? (
            <Text size="sm" c="dimmed">
              This conversation belongs to another member: only they can continue it.
            </Text>
          ) : (
            <form onSubmit={submit}>
              <Group align="flex-end">
                <Textarea
                  label="Message"
                  style={{ flex: 1 }}
                  autosize
                  minRows={1}
                  value={draft}
                  onChange={(e) => setDraft(e.currentTarget.value)}
                  description={busy ? 'The agent is still working: wait for it, or cancel the run.' : undefined}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter' && !e.shiftKey) submit(e);
                  }}
                />
                <Button type="submit" disabled={busy || !draft.trim()}>
                  Send
                </Button>
              </Group>
            </form>
          )}
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 4 }}>
        {/* Refreshed once the latest run exists (its `run` event) and when it ends. */}
        <ConversationHistory
          agentId={agentId}
          activeId={conv.conversationId}
          refreshKey={`${conv.conversationId ?? ''}:${conv.turns.at(-1)?.runId ?? ''}:${lastRun?.status ?? ''}`}
        />
      </Grid.Col>
    </Grid>
  );
}
