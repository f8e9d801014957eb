import { Alert, Button, Group, List, Stack, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../api/client';
import { data, http, type Schemas } from '../api/typed';
import { actionOf, ActionForm, actionsInvalid, blankAction, toBody, type Action } from './ConnectorActionForm';
import { HeadersField, headersOf, originChangeNote, replacingHeaders, type HeaderRow } from './HeadersField';

type Connector = Schemas['ConnectorResponse'];

/**
 * A new connector, or one being edited (`existing`): name, base URL, actions (CEL checked as typed) and auth headers,
 * which are write-only: editing shows the stored names, and moving to another origin needs the values again.
 */
export function ConnectorForm({ existing, onDone }: { existing?: Connector; onDone: () => void }) {
  const queries = useQueryClient();
  const [name, setName] = useState(existing?.name ?? '');
  const [baseUrl, setBaseUrl] = useState(existing?.base_url ?? 'https://');
  const [actions, setActions] = useState<Action[]>(existing ? existing.actions.map(actionOf) : [blankAction()]);
  const [headers, setHeaders] = useState<HeaderRow[]>([{ name: '', value: '' }]);
  const [problems, setProblems] = useState<string[]>([]);
  const note = existing ? originChangeNote(existing.base_url, baseUrl, existing.header_keys, headers) : undefined;
  const save = useMutation({
    mutationFn: () => {
      const body = {
        ...toBody(name, baseUrl, actions),
        ...(replacingHeaders(headers) ? { headers: headersOf(headers) } : {}),
      };
      return existing
        ? data(http.PUT('/api/connectors/{id}', { params: { path: { id: existing.id } }, body }))
        : data(http.POST('/api/connectors', { body }));
    },
    onSuccess: (c) => {
      notifications.show({
        color: 'green',
        message: existing
          ? `Connector ${c.name} saved: ${c.tools.join(', ')}`
          : `Connector ${c.name} created: ${c.tools.join(', ')}`,
      });
      setProblems([]);
      setName('');
      setActions([blankAction()]);
      setHeaders([{ name: '', value: '' }]);
      void queries.invalidateQueries({ queryKey: ['connectors'] });
      onDone();
    },
    onError: (err) => setProblems(err instanceof ApiError && err.problems.length ? err.problems : [err.message]),
  });
  return (
    <Stack>
      <Title order={3}>{existing ? `Edit connector ${existing.name}` : 'New connector'}</Title>
      <TextInput label="Connector name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
      <TextInput label="Base URL" value={baseUrl} onChange={(e) => setBaseUrl(e.currentTarget.value)} required />
      <HeadersField rows={headers} onChange={setHeaders} storedKeys={existing?.header_keys} note={note} />
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
        <Button
          onClick={() => save.mutate()}
          disabled={actionsInvalid(actions) || !name || !!note}
          loading={save.isPending}
        >
          {existing ? `Save connector ${existing.name}` : 'Create connector'}
        </Button>
        {existing && (
          <Button variant="subtle" onClick={onDone}>
            Cancel
          </Button>
        )}
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
