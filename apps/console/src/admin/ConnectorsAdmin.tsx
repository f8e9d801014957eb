import { Alert, Button, Card, Checkbox, Group, List, Select, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../api/client';
import { data, http } from '../api/typed';
import { celProblem } from './cel';

interface Action {
  name: string;
  method: string;
  path: string;
  description: string;
  parameters: string;
  requires_confirmation: boolean;
  requires_confirmation_when: string;
}

const blankAction = (): Action => ({
  name: '',
  method: 'POST',
  path: '/',
  description: '',
  parameters: '',
  requires_confirmation: false,
  requires_confirmation_when: '',
});

function ActionForm({ a, i, onChange, onRemove }: { a: Action; i: number; onChange: (a: Action) => void; onRemove: () => void }) {
  const cel = celProblem(a.requires_confirmation_when);
  let paramsError: string | undefined;
  if (a.parameters.trim()) {
    try {
      JSON.parse(a.parameters);
    } catch {
      paramsError = 'Not valid JSON';
    }
  }
  const set = (patch: Partial<Action>) => onChange({ ...a, ...patch });
  return (
    <Card withBorder padding="sm" aria-label={`Action ${i + 1}`}>
      <Stack gap="xs">
        <Group grow>
          <TextInput label="Action name" value={a.name} onChange={(e) => set({ name: e.currentTarget.value })} required />
          <Select
            label="Method"
            data={['GET', 'POST', 'PUT', 'PATCH', 'DELETE']}
            value={a.method}
            onChange={(v) => set({ method: v ?? 'POST' })}
            allowDeselect={false}
          />
        </Group>
        <TextInput
          label="Path"
          description="{name} segments come from the args"
          value={a.path}
          onChange={(e) => set({ path: e.currentTarget.value })}
        />
        <TextInput label="Description" value={a.description} onChange={(e) => set({ description: e.currentTarget.value })} />
        <Textarea
          label="Parameters (JSON Schema)"
          autosize
          minRows={1}
          styles={{ input: { fontFamily: 'monospace' } }}
          value={a.parameters}
          onChange={(e) => set({ parameters: e.currentTarget.value })}
          error={paramsError}
        />
        <Checkbox
          label="Always requires confirmation"
          checked={a.requires_confirmation}
          onChange={(e) => set({ requires_confirmation: e.currentTarget.checked })}
        />
        <TextInput
          label="Requires confirmation when (CEL)"
          description="e.g. args.amount > 50000"
          styles={{ input: { fontFamily: 'monospace' } }}
          value={a.requires_confirmation_when}
          onChange={(e) => set({ requires_confirmation_when: e.currentTarget.value })}
          error={cel}
        />
        <Group>
          <Button size="xs" variant="subtle" color="red" onClick={onRemove}>
            Remove action
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function toBody(name: string, baseUrl: string, actions: Action[]) {
  return {
    name,
    base_url: baseUrl,
    actions: actions.map((a) => ({
      name: a.name,
      method: a.method,
      path: a.path,
      ...(a.description ? { description: a.description } : {}),
      ...(a.parameters.trim() ? { parameters: JSON.parse(a.parameters) as Record<string, unknown> } : {}),
      ...(a.requires_confirmation ? { requires_confirmation: true } : {}),
      ...(a.requires_confirmation_when.trim() ? { requires_confirmation_when: a.requires_confirmation_when } : {}),
    })),
  };
}

/** Connectors: the org's HTTP APIs whose actions become tools; confirmation conditions are checked as you type. */
export function ConnectorsAdmin() {
  const queries = useQueryClient();
  const list = useQuery({ queryKey: ['connectors'], queryFn: () => data(http.GET('/api/connectors')) });
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('https://');
  const [actions, setActions] = useState<Action[]>([blankAction()]);
  const [problems, setProblems] = useState<string[]>([]);
  const invalid = actions.some((a) => celProblem(a.requires_confirmation_when) !== null || !a.name);
  const create = useMutation({
    mutationFn: () => data(http.POST('/api/connectors', { body: toBody(name, baseUrl, actions) })),
    onSuccess: (c) => {
      notifications.show({ color: 'green', message: `Connector ${c.name} created: ${c.tools.join(', ')}` });
      setProblems([]);
      setName('');
      setActions([blankAction()]);
      void queries.invalidateQueries({ queryKey: ['connectors'] });
    },
    onError: (err) => setProblems(err instanceof ApiError && err.problems.length ? err.problems : [err.message]),
  });
  return (
    <Stack maw={800}>
      <Title order={2}>Connectors</Title>
      {list.data?.length === 0 && <Text c="dimmed">No connectors yet.</Text>}
      <Table aria-label="Connectors">
        <Table.Tbody>
          {list.data?.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td fw={600}>{c.name}</Table.Td>
              <Table.Td>{c.base_url}</Table.Td>
              <Table.Td>{c.actions.map((a) => a.name).join(', ')}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Title order={3}>New connector</Title>
      <TextInput label="Connector name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
      <TextInput label="Base URL" value={baseUrl} onChange={(e) => setBaseUrl(e.currentTarget.value)} required />
      {actions.map((a, i) => (
        <ActionForm
          key={i}
          a={a}
          i={i}
          onChange={(n) => setActions(actions.map((x, j) => (j === i ? n : x)))}
          onRemove={() => setActions(actions.filter((_, j) => j !== i))}
        />
      ))}
      <Group>
        <Button variant="default" onClick={() => setActions([...actions, blankAction()])}>
          Add action
        </Button>
        <Button onClick={() => create.mutate()} disabled={invalid || !name} loading={create.isPending}>
          Create connector
        </Button>
      </Group>
      {problems.length > 0 && (
        <Alert color="red" role="alert" title="Not saved">
          <List size="sm">
            {problems.map((p) => (
              <List.Item key={p}>{p}</List.Item>
            ))}
          </List>
        </Alert>
      )}
    </Stack>
  );
}
