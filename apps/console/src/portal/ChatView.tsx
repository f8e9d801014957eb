import { Alert, Button, Group, Loader, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router-dom';
import { data, http, type Schemas } from '../api/typed';
import { toastError } from '../ui/errors';
import type { AgentSummary } from './AgentsList';
import { foldRun } from './run-model';
import { HookLine, ToolCallCard } from './ToolCallCard';
import { useConversation, type Turn } from './useConversation';

function TurnView({ turn, onCancel }: { turn: Turn; onCancel: (runId: string) => void }) {
  const run = foldRun(turn.events);
  const live = !run.status && !turn.failed;
  return (
    <Stack gap="xs" data-testid="turn" data-status={run.status ?? 'live'}>
      <Paper p="sm" bg="blue.0" style={{ alignSelf: 'flex-end', maxWidth: '85%' }}><Text>{turn.message}</Text></Paper>
      {run.sessionHooks.map((h, i) => <HookLine key={i} h={h} />)}
      {run.calls.map((c) => <ToolCallCard key={c.callId} call={c} />)}
      {run.answer && <Paper p="sm" withBorder data-testid="answer"><Text style={{ whiteSpace: 'pre-wrap' }}>{run.answer}</Text></Paper>}
      {run.errors.map((e, i) => <Alert key={i} color="red">{e}</Alert>)}
      {turn.failed && <Alert color="red" role="alert">The stream stopped: {turn.failed}. Reload the page to reattach to the run.</Alert>}
      <Group gap="xs">
        {live ? <><Loader size="xs" /><Text size="xs" c="dimmed">Running…</Text></> : <Text size="xs" c="dimmed">Run {run.status ?? 'interrupted'}</Text>}
        {live && run.runId && <Button size="compact-xs" variant="subtle" color="red" onClick={() => onCancel(run.runId!)}>Cancel run</Button>}
      </Group>
    </Stack>
  );
}

/** Portal chat with one agent: messages, each run streamed live with its tool calls, hooks and approvals. */
export function ChatView() {
  const { agentId = '' } = useParams();
  const agent = useQuery({ queryKey: ['agent', agentId], queryFn: () => data(http.GET('/api/agents/{id}', { params: { path: { id: agentId } } })) });
  const { conv, send, cancel, reset } = useConversation(agentId);
  const [draft, setDraft] = useState('');
  const busy = conv.turns.length > 0 && !foldRun(conv.turns.at(-1)!.events).status && !conv.turns.at(-1)!.failed;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!draft.trim()) return;
    void send(draft.trim());
    setDraft('');
  }

  return (
    <Stack maw={900}>
      <Group justify="space-between">
        <Title order={2}>{agent.data?.name ?? 'Chat'}</Title>
        <Button variant="default" size="xs" onClick={reset} disabled={busy}>New conversation</Button>
      </Group>
      {agent.error && <Alert color="red" role="alert">{agent.error.message}</Alert>}
      {conv.turns.length === 0 && <Text c="dimmed">Ask the agent something to start.</Text>}
      {conv.turns.map((t, i) => <TurnView key={i} turn={t} onCancel={(id) => cancel(id).catch((err) => toastError('Cancel failed', err))} />)}
      <form onSubmit={submit}>
        <Group align="flex-end">
          <Textarea label="Message" style={{ flex: 1 }} autosize minRows={1} value={draft} onChange={(e) => setDraft(e.currentTarget.value)}
            onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey) submit(e); }} />
          <Button type="submit" disabled={busy || !draft.trim()}>Send</Button>
        </Group>
      </form>
    </Stack>
  );
}
