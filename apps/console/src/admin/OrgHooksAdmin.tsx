import { Alert, Badge, Button, Group, List, Select, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError } from '../api/client';
import { data, http } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';
import { HooksEditor, normaliseHooks, yamlProblems, type HooksValue } from './HooksEditor';
import { ForceConfirm } from './policy/ForceConfirm';
import { PolicyLifecyclePanels } from './policy/PolicyLifecyclePanels';

const hooksBody = (v: HooksValue) => ({ class_hooks: v.class_hooks, ...(v.yaml?.trim() ? { yaml: v.yaml } : {}) });

/** The org-wide hooks: every run of every agent of the org gets them (class hooks and YAML), checked as typed. */
export function OrgHooksAdmin() {
  const queries = useQueryClient();
  const saved = useQuery({ queryKey: ['org-hooks'], queryFn: () => data(http.GET('/api/org/hooks')) });
  const [value, setValue] = useState<HooksValue | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  useEffect(() => {
    if (saved.data && value === null) setValue(normaliseHooks(saved.data.hooks));
  }, [saved.data, value]);
  const [testsRefused, setTestsRefused] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: ({ v, force }: { v: HooksValue; force: boolean }) =>
      data(http.PUT('/api/org/hooks', { body: { ...hooksBody(v), ...(force ? { force } : {}) } })),
    onSuccess: () => {
      setTestsRefused(null);
      notifications.show({
        color: 'green',
        message: 'Org hooks saved: every agent of the org runs them from its next turn.',
      });
      setProblems([]);
      void queries.invalidateQueries({ queryKey: ['org-hooks'] });
      void queries.invalidateQueries({ queryKey: ['effective-hooks'] });
    },
    onError: (err) => {
      // 409: the org hooks' tests fail on this change; the admin may save anyway (recorded with the version).
      if (err instanceof ApiError && err.status === 409) setTestsRefused(err.message);
      else setProblems(err instanceof ApiError && err.problems.length ? err.problems : [err.message]);
    },
  });
  const reload = () => {
    setValue(null);
    void queries.invalidateQueries({ queryKey: ['org-hooks'] });
  };
  const current = value ?? { class_hooks: [] };
  return (
    <Stack maw={900}>
      <Title order={1} size="h2">
        Org hooks
      </Title>
      <Text c="dimmed" size="sm">
        Run for every agent of the organisation, before the agent&apos;s own hooks of the same point; an agent hook of
        the same name is replaced by the org&apos;s.
      </Text>
      <ErrorAlert error={saved.error} what="The org hooks could not be loaded" />
      <HooksEditor value={current} onChange={(v) => setValue(v)} />
      {problems.length > 0 && (
        <Alert color="red" role="alert" title="Not saved" data-testid="org-hooks-problems">
          <List size="sm">
            {problems.map((p) => (
              <List.Item key={p}>{p}</List.Item>
            ))}
          </List>
        </Alert>
      )}
      {testsRefused && (
        <ForceConfirm
          title="Not saved: the policy tests fail"
          message={testsRefused}
          action="Save anyway"
          onForce={() => save.mutate({ v: current, force: true })}
          onCancel={() => setTestsRefused(null)}
        />
      )}
      <Group>
        <Button
          onClick={() => save.mutate({ v: current, force: false })}
          disabled={!value || yamlProblems(current.yaml).length > 0}
          loading={save.isPending}
        >
          Save org hooks
        </Button>
      </Group>
      <PolicyLifecyclePanels subject={{ type: 'org_hooks' }} candidate={hooksBody(current)} onChanged={reload} />
      <EffectiveChain />
    </Stack>
  );
}

/** The hooks one agent's runs go through, in run order per point, with where each comes from. */
function EffectiveChain() {
  const agents = useQuery({ queryKey: ['agents'], queryFn: () => data(http.GET('/api/agents')) });
  const [agentId, setAgentId] = useState<string | null>(null);
  const chain = useQuery({
    queryKey: ['effective-hooks', agentId],
    enabled: !!agentId,
    queryFn: () => data(http.GET('/api/agents/{id}/hooks/effective', { params: { path: { id: agentId ?? '' } } })),
  });
  const agentName = agents.data?.find((a) => a.id === agentId)?.name ?? '';
  return (
    <Stack gap="xs">
      <Title order={3}>Effective chain</Title>
      <Select
        label="Effective chain of agent"
        placeholder="Pick an agent"
        data={(agents.data ?? []).map((a) => ({ value: a.id, label: a.name }))}
        value={agentId}
        onChange={setAgentId}
        searchable
      />
      <ErrorAlert error={chain.error} what="The chain could not be loaded" />
      {chain.data && (
        <Table aria-label={`Effective hooks of ${agentName}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Point</Table.Th>
              <Table.Th>Hook</Table.Th>
              <Table.Th>From</Table.Th>
              <Table.Th>Kind</Table.Th>
              <Table.Th>Priority</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {chain.data.hooks.map((h) => (
              <Table.Tr key={`${h.point}-${h.name}`}>
                <Table.Td>{h.point}</Table.Td>
                <Table.Td ff="monospace">{h.name}</Table.Td>
                <Table.Td>
                  <Badge variant="light" color={h.origin === 'org' ? 'violet' : h.origin === 'auto' ? 'gray' : 'blue'}>
                    {h.origin}
                  </Badge>
                </Table.Td>
                <Table.Td>{h.source}</Table.Td>
                <Table.Td>{h.runs_last ? 'runs last' : h.priority}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {chain.data?.overridden.map((o) => (
        <Text key={o.name} size="sm" c="orange">
          The agent&apos;s {o.name} is replaced by the org&apos;s hook of that name.
        </Text>
      ))}
    </Stack>
  );
}
