import { Button, Card, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { data, http, type Schemas } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';
import { originOf } from './HeadersField';

type Credential = Schemas['LlmCredentialResponse'];

/** Renames or re-binds a credential. Its key belongs to its origin: another origin needs the key typed again. */
export function LlmCredentialEditor({ credential, onDone }: { credential: Credential; onDone: () => void }) {
  const queries = useQueryClient();
  const [name, setName] = useState(credential.name);
  const [origin, setOrigin] = useState(credential.origin ?? 'https://');
  const [apiKey, setApiKey] = useState('');
  const moved = originOf(origin) !== (credential.origin ? originOf(credential.origin) : null);
  const note =
    moved && !apiKey
      ? `The key is only sent to ${credential.origin ?? 'no origin yet'}: ` +
        `for ${originOf(origin) ?? 'another origin'}, enter the API key again.`
      : undefined;
  const save = useMutation({
    mutationFn: () =>
      data(
        http.PUT('/api/llm-credentials/{id}', {
          params: { path: { id: credential.id } },
          body: { name, origin, ...(apiKey ? { api_key: apiKey } : {}) },
        }),
      ),
    onSuccess: (c) => {
      notifications.show({ color: 'green', message: `Credential ${c.name} saved: its key is never shown again.` });
      void queries.invalidateQueries({ queryKey: ['llm-credentials'] });
      onDone();
    },
  });
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Group grow>
          <TextInput
            label={`Name of ${credential.name}`}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            required
          />
          <TextInput
            label={`Origin of ${credential.name}`}
            value={origin}
            onChange={(e) => setOrigin(e.currentTarget.value)}
            required
          />
        </Group>
        <PasswordInput
          label={`New API key for ${credential.name}`}
          description="Leave empty to keep the stored key (same origin only). Write-only: never shown again."
          autoComplete="new-password"
          visibilityToggleButtonProps={{ 'aria-label': 'Reveal the typed replacement' }}
          value={apiKey}
          onChange={(e) => setApiKey(e.currentTarget.value)}
        />
        {note && (
          <Text size="sm" c="orange" role="note">
            {note}
          </Text>
        )}
        <Group>
          <Button onClick={() => save.mutate()} disabled={!name || !!note} loading={save.isPending}>
            Save credential {credential.name}
          </Button>
          <Button variant="subtle" onClick={onDone}>
            Cancel
          </Button>
        </Group>
        <ErrorAlert error={save.error} what="The credential was not saved" />
      </Stack>
    </Card>
  );
}
