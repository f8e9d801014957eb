import { Button, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { policyApi, type PolicyConfig, type PolicySubject } from './policy-api';

const DAY = 24 * 3600 * 1000;
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/**
 * What-if: the policy as edited re-decides the recorded calls of a window; the summary and every call it would change.
 */
export function ReplayPanel({ subject, candidate }: { subject: PolicySubject; candidate: PolicyConfig }) {
  const [from, setFrom] = useState(() => isoDay(Date.now() - 7 * DAY));
  const [to, setTo] = useState(() => isoDay(Date.now() + DAY));
  const valid = (v: string) => !Number.isNaN(new Date(v).getTime());
  const replay = useMutation({
    mutationFn: () =>
      policyApi.replay(subject, {
        config: candidate,
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
      }),
  });
  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        Replays the recorded calls of the window under the policy as edited here, with the args each call had when it
        was decided. Nothing is executed.
      </Text>
      <Group align="end">
        <TextInput
          label="From"
          description="Date (UTC) or ISO time"
          value={from}
          onChange={(e) => setFrom(e.currentTarget.value)}
          error={valid(from) ? undefined : 'Not a date'}
        />
        <TextInput
          label="To"
          description="Date (UTC) or ISO time"
          value={to}
          onChange={(e) => setTo(e.currentTarget.value)}
          error={valid(to) ? undefined : 'Not a date'}
        />
        <Button onClick={() => replay.mutate()} disabled={!valid(from) || !valid(to)} loading={replay.isPending}>
          Replay
        </Button>
      </Group>
      <ErrorAlert error={replay.error} what="The replay was refused" />
      {replay.data && (
        <Stack gap="xs" role="region" aria-label="Replay result">
          <Text size="sm" fw={600} data-testid="replay-summary">
            {replay.data.summary.text}
          </Text>
          {replay.data.truncated && (
            <Text size="xs">{`Only the first ${replay.data.changes.length} changed calls are listed.`}</Text>
          )}
          {replay.data.changes.length > 0 && (
            <Table aria-label="Calls the candidate decides differently" layout="fixed">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Call</Table.Th>
                  <Table.Th w="18%">Was</Table.Th>
                  <Table.Th w="18%">Would be</Table.Th>
                  <Table.Th w="22%">Difference</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {replay.data.changes.map((c) => (
                  <Table.Tr key={c.decision_id}>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {c.tool}
                      </Text>
                      <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                        {JSON.stringify(c.args)}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {new Date(c.at).toLocaleString()}
                      </Text>
                    </Table.Td>
                    <Table.Td>{words(c.old)}</Table.Td>
                    <Table.Td>{words(c.new)}</Table.Td>
                    <Table.Td>{c.differences.join(', ').replace(/_/g, ' ')}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      )}
    </Stack>
  );
}

const words = (d: { decision: string; approvals: number }) =>
  d.decision === 'ask' ? `ask (${d.approvals} approval${d.approvals === 1 ? '' : 's'})` : d.decision;
