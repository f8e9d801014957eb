import { Badge, Button, Group, Select, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../../api/client';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { ForceConfirm } from './ForceConfirm';
import { policyApi, subjectKey, type PolicySubject } from './policy-api';

/** The subject's versions (who, when, why), the diff between any two, and a rollback to any (itself a new version). */
export function HistoryPanel({ subject, onChanged }: { subject: PolicySubject; onChanged: () => void }) {
  const queries = useQueryClient();
  const versions = useQuery({
    queryKey: [...subjectKey(subject), 'versions'],
    queryFn: () => policyApi.versions(subject),
  });
  const list = versions.data ?? [];
  const [from, setFrom] = useState<string | null>(null);
  const [to, setTo] = useState<string | null>(null);
  const diff = useQuery({
    queryKey: [...subjectKey(subject), 'diff', from, to],
    enabled: !!from && !!to,
    queryFn: () => policyApi.diff(subject, Number(from), Number(to)),
  });
  const [refused, setRefused] = useState<{ version: number; message: string } | null>(null);
  const rollback = useMutation({
    mutationFn: ({ version, force }: { version: number; force: boolean }) =>
      policyApi.rollback(subject, version, force),
    onSuccess: (_, { version }) => {
      setRefused(null);
      notifications.show({ color: 'green', message: `Rolled back to version ${version} (as a new version)` });
      void queries.invalidateQueries({ queryKey: subjectKey(subject) });
      onChanged();
    },
    onError: (err, { version }) => {
      if (err instanceof ApiError && err.status === 409) setRefused({ version, message: err.message });
    },
  });
  const options = list.map((v) => ({ value: String(v.version), label: `Version ${v.version}` }));
  return (
    <Stack gap="sm">
      <ErrorAlert error={versions.error} what="The versions could not be loaded" />
      <Table aria-label="Policy versions">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Version</Table.Th>
            <Table.Th>Saved</Table.Th>
            <Table.Th>Comment</Table.Th>
            <Table.Th>Roll back</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {[...list].reverse().map((v, i) => (
            <Table.Tr key={v.version}>
              <Table.Td>
                <Group gap={4}>
                  <Text size="sm">{v.version}</Text>
                  {i === 0 && <Badge variant="light">live</Badge>}
                  {v.rolled_back_to !== null && (
                    <Badge variant="light" color="gray">{`rollback to ${v.rolled_back_to}`}</Badge>
                  )}
                  {v.tests_forced && (
                    <Badge color="orange.9">{`forced past ${v.tests_forced.length} failing test(s)`}</Badge>
                  )}
                </Group>
              </Table.Td>
              <Table.Td>
                <Text size="xs">{new Date(v.created_at).toLocaleString()}</Text>
                <Text size="xs" c="dimmed">
                  {v.created_by ?? 'system'}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{v.comment ?? ''}</Text>
              </Table.Td>
              <Table.Td>
                {i > 0 && (
                  <Button
                    size="xs"
                    variant="default"
                    loading={rollback.isPending && rollback.variables.version === v.version}
                    onClick={() => rollback.mutate({ version: v.version, force: false })}
                  >
                    {`Roll back to ${v.version}`}
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {refused && (
        <ForceConfirm
          title={`Rollback to version ${refused.version} refused`}
          message={refused.message}
          action="Roll back anyway"
          onForce={() => rollback.mutate({ version: refused.version, force: true })}
          onCancel={() => setRefused(null)}
        />
      )}
      {rollback.error && !(rollback.error instanceof ApiError && rollback.error.status === 409) && (
        <ErrorAlert error={rollback.error} what="The rollback failed" />
      )}
      <Group align="end">
        <Select label="Diff from" data={options} value={from} onChange={setFrom} w={160} />
        <Select label="Diff to" data={options} value={to} onChange={setTo} w={160} />
      </Group>
      <ErrorAlert error={diff.error} what="The diff could not be loaded" />
      {diff.data && <DiffTable changes={diff.data.changes} from={diff.data.from} to={diff.data.to} />}
    </Stack>
  );
}

function DiffTable({
  changes,
  from,
  to,
}: {
  changes: Array<{ op: string; path: string; before?: unknown; after?: unknown }>;
  from: number;
  to: number;
}) {
  if (changes.length === 0) return <Text size="sm">{`Versions ${from} and ${to} hold the same policy.`}</Text>;
  return (
    <Table aria-label={`Changes from version ${from} to ${to}`} layout="fixed">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w="15%">Change</Table.Th>
          <Table.Th w="25%">Where</Table.Th>
          <Table.Th>Before</Table.Th>
          <Table.Th>After</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {changes.map((c) => (
          <Table.Tr key={`${c.op}-${c.path}`}>
            <Table.Td>{c.op}</Table.Td>
            <Table.Td ff="monospace">{c.path}</Table.Td>
            <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }}>
              {c.before === undefined ? '' : JSON.stringify(c.before)}
            </Table.Td>
            <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }}>
              {c.after === undefined ? '' : JSON.stringify(c.after)}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
