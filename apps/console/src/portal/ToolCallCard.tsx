import { Badge, Card, Group, List, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, http } from '../api/typed';
import { JsonBlock } from '../ui/JsonBlock';
import type { HookView, ToolCallView } from './run-model';
import { asText } from '../ui/as-text';
import { approvalAwaited } from '../ui/approver-words';
import { useCountdown } from '../ui/useCountdown';

export function HookLine({ h }: { h: HookView }) {
  const color = h.outcome === 'block' || h.outcome === 'error' ? 'red' : h.outcome === 'rewrite' ? 'yellow' : 'green';
  const label =
    h.outcome === 'block'
      ? `blocked by ${h.hook}`
      : h.outcome === 'rewrite'
        ? `rewritten by ${h.hook}`
        : h.outcome === 'allow'
          ? 'allowed'
          : h.outcome;
  return (
    <Group gap={6} wrap="wrap">
      <Badge size="xs" color={color} variant="light">
        {label}
      </Badge>
      <Text size="xs">
        {h.hook} · {h.point}
        {h.durationMs !== undefined ? ` · ${h.durationMs} ms` : ''}
      </Text>
      {h.sideEffects.length > 0 && (
        <Text size="xs" c="dimmed">
          — {h.sideEffects.join('; ')}
        </Text>
      )}
    </Group>
  );
}

function Waiting({ pending }: { pending: NonNullable<ToolCallView['pending']> }) {
  const row = useQuery({
    queryKey: ['confirmation', pending.confirmationId],
    queryFn: () => data(http.GET('/api/confirmations/{id}', { params: { path: { id: pending.confirmationId } } })),
  });
  const left = useCountdown(pending.expiresAt);
  const awaited = row.data ? approvalAwaited(row.data) : 'approval by an approver';
  const where =
    pending.channel?.type && pending.channel.type !== 'inbox'
      ? ` in ${pending.channel.name ?? pending.channel.type}`
      : '';
  return (
    <Text size="sm" c="orange" role="status">
      Waiting for {awaited}
      {where}, expires in {left}
    </Text>
  );
}

function status(call: ToolCallView): [string, string] {
  if (call.observation?.blocked)
    return [`blocked${call.observation.blockedBy ? ` by ${call.observation.blockedBy}` : ''}`, 'red'];
  if (call.observation) return ['done', 'green'];
  if (call.resolved) return [call.resolved.status, call.resolved.status === 'approved' ? 'green' : 'red'];
  if (call.endedWith) return [call.endedWith, 'gray'];
  if (call.pending) return ['waiting for approval', 'orange'];
  return ['running', 'blue'];
}

/** One tool call as it happened: the proposed args, each hook's outcome with its duration, approval, observation. */
export function ToolCallCard({ call }: { call: ToolCallView }) {
  const [label, color] = status(call);
  const argsLabel = `${call.tool} ${asText(call.args.id ?? '')}`.trim();
  return (
    <Card withBorder padding="sm" data-testid="tool-call" aria-label={`Tool call ${argsLabel}`}>
      <Stack gap={6}>
        <Group justify="space-between">
          <Text fw={600} ff="monospace">
            {call.tool}
          </Text>
          <Badge color={color}>{label}</Badge>
        </Group>
        <JsonBlock value={call.args} label="Arguments" />
        {call.proposedArgs && (
          <Text size="xs" c="dimmed" data-testid="proposed-args">
            Approved with changes; the model proposed {JSON.stringify(call.proposedArgs)}
          </Text>
        )}
        {call.hooks.length > 0 && (
          <List size="xs" listStyleType="none">
            {call.hooks.map((h, i) => (
              <List.Item key={i}>
                <HookLine h={h} />
              </List.Item>
            ))}
          </List>
        )}
        {call.pending && !call.resolved && !call.endedWith && <Waiting pending={call.pending} />}
        {call.endedWith && (
          <Text size="sm" c="dimmed">
            No longer waiting: the run {call.endedWith === 'cancelled' ? 'was cancelled' : `ended (${call.endedWith})`}
          </Text>
        )}
        {call.resolved && (
          <Text size="sm">
            Approval {call.resolved.status}
            {call.resolved.respondedBy ? ` by ${call.resolved.respondedBy}` : ''}
          </Text>
        )}
        {call.observation && (
          <Stack gap={2}>
            <Text size="xs" c="dimmed">
              Observation
            </Text>
            <Text
              size="sm"
              ff="monospace"
              style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}
              data-testid="observation"
            >
              {call.observation.content}
            </Text>
          </Stack>
        )}
      </Stack>
    </Card>
  );
}
