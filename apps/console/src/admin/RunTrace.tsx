import { Alert, Badge, Box, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router-dom';
import { data, http } from '../api/typed';
import { traceTimeline, type TimelineStep } from './trace-timeline';

const OUTCOME_COLOR: Record<string, string> = {
  allow: 'green',
  done: 'green',
  approved: 'green',
  answered: 'green',
  rewrite: 'yellow',
  pending: 'orange',
};
const KIND_COLOR: Record<TimelineStep['kind'], string> = {
  'model turn': 'violet',
  'tool call': 'blue',
  hook: 'gray',
  approval: 'orange',
  observation: 'teal',
  plan: 'indigo',
  error: 'red',
};

/** hh:mm:ss.mmm; the hour, minute and second are named: with only `fractionalSecondDigits`, "525" is all it shows. */
const clock = (iso: string) =>
  new Date(iso).toLocaleTimeString(undefined, {
    hourCycle: 'h23',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    fractionalSecondDigits: 3,
  });
const count = new Intl.NumberFormat();
const tokens = (u: { prompt_tokens: number; completion_tokens: number; total_tokens: number }) =>
  `${count.format(u.total_tokens)} tokens ` +
  `(${count.format(u.prompt_tokens)} in, ${count.format(u.completion_tokens)} out)`;
const duration = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms} ms`);

/** One step on the time line: when (clock and offset from the run's start), what, its outcome and how long it took. */
function Step({ s, start }: { s: TimelineStep; start: number }) {
  return (
    <Box
      component="li"
      data-kind={s.kind}
      pl="md"
      pb="sm"
      style={{ borderLeft: `3px solid var(--mantine-color-${KIND_COLOR[s.kind]}-6)` }}
    >
      <Group gap="xs" wrap="wrap">
        {s.at && (
          <Text size="xs" ff="monospace" c="dimmed" title={new Date(s.at).toLocaleString()}>
            {clock(s.at)} (+{duration(Date.parse(s.at) - start)})
          </Text>
        )}
        <Text size="xs" tt="uppercase" fw={700} c={`${KIND_COLOR[s.kind]}.9`}>
          {s.kind}
        </Text>
        <Text size="sm" ff="monospace">
          {s.title}
        </Text>
        {s.outcome && (
          <Badge variant="light" color={OUTCOME_COLOR[s.outcome] ?? 'red'}>
            {s.outcome}
          </Badge>
        )}
        {s.durationMs !== undefined && <Text size="sm">took {duration(s.durationMs)}</Text>}
        {s.tokens && <Text size="sm">· {tokens(s.tokens)}</Text>}
      </Group>
      {s.detail && (
        <Text size="xs" ff="monospace" style={{ wordBreak: 'break-word' }}>
          {s.detail}
        </Text>
      )}
    </Box>
  );
}

/** One run's time line: model turns, tool calls, each hook with its outcome and duration, approvals, observations. */
export function RunTrace() {
  const { runId = '' } = useParams();
  const run = useQuery({
    queryKey: ['run', runId],
    queryFn: () => data(http.GET('/api/runs/{id}', { params: { path: { id: runId } } })),
    refetchInterval: (q) => (q.state.data?.status === 'running' || q.state.data?.status === 'waiting' ? 1000 : false),
  });
  if (run.error)
    return (
      <Alert color="red" role="alert">
        {run.error.message}. Check the run id, or open the run from the audit log.
      </Alert>
    );
  if (!run.data) return <Text c="dimmed">Loading…</Text>;
  const r = run.data;
  const steps = traceTimeline(r.trace, r.answer, { createdAt: r.created_at, finishedAt: r.finished_at });
  const start = Date.parse(r.created_at);
  const total = r.finished_at ? Date.parse(r.finished_at) - start : null;
  return (
    <Stack>
      <Title order={1} size="h2">
        Run trace
      </Title>
      <Text size="sm">
        Run{' '}
        <Text span ff="monospace">
          {r.id}
        </Text>{' '}
        · <Badge>{r.status}</Badge> · surface {r.surface} · started {new Date(r.created_at).toLocaleString()}
        {total !== null ? ` · took ${duration(total)}` : ''} · “{r.message}”
      </Text>
      <Text size="sm" data-testid="run-tokens">
        {r.usage
          ? `Token use: ${tokens(r.usage)} over ${r.usage.reported_calls} model call(s)`
          : 'Token use: the model server reported none for this run'}
      </Text>
      <Text size="xs" c="dimmed">
        Times are when each event was stored; tokens are what the model server reported.
      </Text>
      {steps.length === 0 && <Text c="dimmed">Nothing happened in this run yet.</Text>}
      <Box component="ol" aria-label="Trace" m={0} p={0} style={{ listStyle: 'none' }}>
        {steps.map((s, i) => (
          <Step key={i} s={s} start={start} />
        ))}
      </Box>
    </Stack>
  );
}
