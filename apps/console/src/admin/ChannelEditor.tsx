import { Button, Card, Group, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { data, http, type Schemas } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';

type Channel = Schemas['ChannelResponse'];
type Settings = Record<string, unknown>;

function parsed(text: string): Settings | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Settings) : null;
  } catch {
    return null;
  }
}

/** What the update sends: keys added or changed, and null for a shown key removed (the server merges). */
export function settingsChange(stored: Settings, edited: Settings): Settings {
  const change: Settings = {};
  for (const [k, v] of Object.entries(edited)) if (JSON.stringify(stored[k]) !== JSON.stringify(v)) change[k] = v;
  for (const k of Object.keys(stored)) if (!(k in edited)) change[k] = null;
  return change;
}

/** Keys that say where (or as whom) the secrets are used: changing one needs the secrets again (as the API checks). */
const REBIND_KEYS = ['base_url', 'app_id', 'corp_id'];

/** Secrets belong to where they were entered for: the API refuses such a change without them, so the form says so. */
function rebindNote(channel: Channel, edited: Settings | null): string | undefined {
  if (!edited || !channel.secrets_set.length) return undefined;
  const rebound = REBIND_KEYS.filter(
    (k) => k in edited && JSON.stringify(edited[k]) !== JSON.stringify(channel.config[k]),
  );
  const missing = channel.secrets_set.filter((s) => edited[s] === undefined || edited[s] === null);
  if (!rebound.length || !missing.length) return undefined;
  return (
    `Changing ${rebound.join(', ')} needs the secrets again: enter ${missing.join(', ')} here ` +
    '(the stored ones stay bound to the old value).'
  );
}

/** Edits a channel: its name and settings; secrets are write-only (named, never shown; typed here to replace them). */
export function ChannelEditor({ channel, onDone }: { channel: Channel; onDone: () => void }) {
  const queries = useQueryClient();
  const [name, setName] = useState(channel.name);
  const [text, setText] = useState(JSON.stringify(channel.config, null, 2));
  const edited = parsed(text);
  const note = rebindNote(channel, edited);
  const save = useMutation({
    mutationFn: () =>
      data(
        http.PUT('/api/channels/{id}', {
          params: { path: { id: channel.id } },
          body: { name, config: settingsChange(channel.config, edited ?? {}) },
        }),
      ),
    onSuccess: (c) => {
      notifications.show({ color: 'green', message: `Channel ${c.name} saved` });
      void queries.invalidateQueries({ queryKey: ['channels'] });
      onDone();
    },
  });
  return (
    <Card withBorder>
      <Stack gap="xs">
        <TextInput
          label={`Name of ${channel.name}`}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          required
        />
        <Textarea
          label={`Settings of ${channel.name} (JSON)`}
          description={
            channel.secrets_set.length
              ? `Secrets stored: ${channel.secrets_set.join(', ')} (never shown). ` +
                'Add one here to replace it; leave it out to keep it.'
              : 'No secrets stored.'
          }
          autosize
          minRows={3}
          styles={{ input: { fontFamily: 'monospace' } }}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          error={edited ? undefined : 'Not valid JSON'}
        />
        {note && (
          <Text size="sm" c="orange" role="note">
            {note}
          </Text>
        )}
        <Group>
          <Button onClick={() => save.mutate()} disabled={!edited || !name || !!note} loading={save.isPending}>
            Save channel {channel.name}
          </Button>
          <Button variant="subtle" onClick={onDone}>
            Cancel
          </Button>
        </Group>
        <ErrorAlert error={save.error} what="The channel was not saved" />
      </Stack>
    </Card>
  );
}
