import { Badge, Button, Group, Stack, Switch, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../../api/client';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { ForceConfirm } from './ForceConfirm';
import { policyApi, subjectKey, type PolicyConfig, type PolicySubject } from './policy-api';

/**
 * "Deploy as shadow": the edited policy runs beside the live one on live calls, deciding nothing;
 * its report; promote or discard.
 */
export function ShadowPanel({
  subject,
  candidate,
  onChanged,
}: {
  subject: PolicySubject;
  candidate: PolicyConfig;
  onChanged: () => void;
}) {
  const queries = useQueryClient();
  const key = [...subjectKey(subject), 'shadow'];
  const shadow = useQuery({
    queryKey: key,
    // 404: no shadow deployed.
    queryFn: () =>
      policyApi.shadow(subject).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }),
  });
  const report = useQuery({
    queryKey: [...key, 'report'],
    enabled: !!shadow.data,
    queryFn: () => policyApi.shadowReport(subject),
  });
  const done = (message: string) => {
    notifications.show({ color: 'green', message });
    void queries.invalidateQueries({ queryKey: subjectKey(subject) });
  };
  const deploy = useMutation({
    mutationFn: () => policyApi.deployShadow(subject, candidate),
    onSuccess: () => done('Deployed as shadow'),
  });
  // Promoted or discarded, there is no shadow any more: the switch turns off with the message, not a refetch later.
  const ended = (message: string) => {
    queries.setQueryData(key, null);
    done(message);
  };
  const discard = useMutation({
    mutationFn: () => policyApi.discard(subject),
    onSuccess: () => ended('Shadow discarded'),
  });
  const [refused, setRefused] = useState<string | null>(null);
  const promote = useMutation({
    mutationFn: (force: boolean) => policyApi.promote(subject, force),
    onSuccess: () => {
      setRefused(null);
      ended('Shadow promoted: it is the live policy now');
      onChanged();
    },
    onError: (err) => {
      if (err instanceof ApiError && err.status === 409) setRefused(err.message);
    },
  });
  const active = !!shadow.data;
  return (
    <Stack gap="sm">
      <ErrorAlert error={shadow.error} what="The shadow could not be loaded" />
      <Switch
        label="Deploy as shadow"
        description={
          'The policy as edited here decides every live call beside the live one, without acting: ' +
          'no approval asked, nothing sent, nothing rewritten.'
        }
        checked={active}
        disabled={shadow.isLoading || deploy.isPending || discard.isPending}
        onChange={(e) => (e.currentTarget.checked ? deploy.mutate() : discard.mutate())}
      />
      <ErrorAlert error={deploy.error} what="The shadow could not be deployed" />
      <ErrorAlert error={discard.error} what="The shadow could not be discarded" />
      {shadow.data && (
        <Text size="sm">
          {`Shadow deployed ${new Date(shadow.data.deployed_at).toLocaleString()} ` +
            `beside version ${shadow.data.live_version ?? '—'}.`}
        </Text>
      )}
      {active && (
        <Group>
          <Button size="xs" variant="default" onClick={() => void report.refetch()} loading={report.isFetching}>
            Refresh report
          </Button>
          <Button size="xs" onClick={() => promote.mutate(false)} loading={promote.isPending}>
            Promote shadow
          </Button>
        </Group>
      )}
      {refused && (
        <ForceConfirm
          title="Promotion refused"
          message={refused}
          action="Promote anyway"
          onForce={() => promote.mutate(true)}
          onCancel={() => setRefused(null)}
        />
      )}
      {promote.error && !(promote.error instanceof ApiError && promote.error.status === 409) && (
        <ErrorAlert error={promote.error} what="The promotion failed" />
      )}
      <ErrorAlert error={report.error} what="The report could not be loaded" />
      {report.data && <ShadowReportView report={report.data} />}
    </Stack>
  );
}

function ShadowReportView({ report }: { report: NonNullable<Awaited<ReturnType<typeof policyApi.shadowReport>>> }) {
  const counts = Object.entries(report.counts as Record<string, number>).filter(([, n]) => n > 0);
  return (
    <Stack gap="xs" role="region" aria-label="Shadow report">
      <Text size="sm" fw={600}>
        {`${report.differing} of ${report.calls_seen} calls decided differently`}
      </Text>
      <Group gap={4}>
        {counts.map(([kind, n]) => (
          <Badge key={kind} color="orange.9">{`${kind.replace(/_/g, ' ')}: ${n}`}</Badge>
        ))}
      </Group>
      {report.calls.length > 0 && (
        <Table aria-label="Calls the shadow would decide differently" layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Tool and args</Table.Th>
              <Table.Th w="18%">Live</Table.Th>
              <Table.Th w="18%">Shadow</Table.Th>
              <Table.Th w="22%">Difference</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {report.calls.map((c) => (
              <Table.Tr key={c.decision_id}>
                <Table.Td>
                  <Text size="sm" ff="monospace">
                    {c.tool}
                  </Text>
                  <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                    {JSON.stringify(c.args)}
                  </Text>
                </Table.Td>
                <Table.Td>{c.live.decision}</Table.Td>
                <Table.Td>{c.shadow.decision}</Table.Td>
                <Table.Td>{c.differences.join(', ').replace(/_/g, ' ')}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
