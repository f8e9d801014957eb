import { Alert, Group, Stack, Switch, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import { data, http, type Schemas } from '../api/typed';
import { usePendingForMe } from './PendingStream';
import { useMemberNames } from './usePending';
import { PendingCard } from './PendingCard';
import { DecidedHistory, LinkedRequestOutcome } from './DecidedHistory';
import { inTurnOrder, turnOf } from './turn-order';
import { onInboxKey, SHORTCUTS_HINT } from './decision-keys';

export type ConfirmationRow = Schemas['ConfirmationResponse'];

/**
 * The approvals inbox: pending requests arrive live (server stream); deciding goes through the same policy as every
 * channel.
 */
export function Approvals() {
  const [filter, setFilter] = useState('');
  const [everyone, setEveryone] = useState(false);
  const { forMe, live, unreachable } = usePendingForMe();
  const focusedId = useParams().id;
  const nameOf = useMemberNames();
  // Both lists are refetched when the inbox stream reports a change (PendingStream), not on a timer.
  const pending = useQuery({
    queryKey: ['confirmations', 'pending'],
    enabled: everyone,
    queryFn: () => data(http.GET('/api/confirmations', { params: { query: { status: 'pending' } } })),
  });
  const all = useQuery({ queryKey: ['confirmations', 'all'], queryFn: () => data(http.GET('/api/confirmations')) });
  const match = (r: ConfirmationRow) =>
    !filter ||
    `${r.tool} ${r.agent_name} ${r.requested_by} ${JSON.stringify(r.args)}`
      .toLowerCase()
      .includes(filter.toLowerCase());
  const pendingRows = inTurnOrder((everyone ? (pending.data ?? []) : forMe).filter(match));
  useEffect(() => {
    document.addEventListener('keydown', onInboxKey);
    return () => document.removeEventListener('keydown', onInboxKey);
  }, []);
  return (
    <Stack maw={1000}>
      <Title order={1} size="h2">
        Approvals
      </Title>
      <Group align="flex-end">
        <TextInput
          label="Filter"
          placeholder="agent, tool, requester or an argument"
          value={filter}
          onChange={(e) => setFilter(e.currentTarget.value)}
          w={{ base: '100%', sm: 360 }}
        />
        <Switch
          label="Also show requests others decide"
          checked={everyone}
          onChange={(e) => setEveryone(e.currentTarget.checked)}
        />
      </Group>
      {pending.error && (
        <Alert color="red" role="alert">
          Approvals could not be loaded: {pending.error.message}. Reload the page to try again.
        </Alert>
      )}
      {!live && (
        <Text size="sm" c={unreachable ? 'red' : 'dimmed'} role="status">
          {unreachable ? 'Cannot reach the server — retrying…' : 'Connecting to live updates…'}
        </Text>
      )}
      {focusedId && !pendingRows.some((r) => r.id === focusedId) && (
        <LinkedRequestOutcome id={focusedId} nameOf={nameOf} />
      )}
      <Tabs defaultValue="pending">
        <Tabs.List>
          <Tabs.Tab value="pending">
            {everyone ? 'All pending' : 'Pending for me'} ({pendingRows.length})
          </Tabs.Tab>
          <Tabs.Tab value="history">Decided</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="pending" pt="md">
          <Stack>
            {pendingRows.length === 0 && (everyone ? pending.isSuccess : live) && (
              <Text c="dimmed" data-testid="inbox-empty">
                Nothing waiting for you. New requests appear here on their own.
              </Text>
            )}
            {pendingRows.length > 0 && (
              <Text size="sm" c="dimmed">
                {SHORTCUTS_HINT}
              </Text>
            )}
            {pendingRows.map((r) => (
              <PendingCard
                key={r.id}
                row={r}
                nameOf={nameOf}
                focused={r.id === focusedId}
                turn={turnOf(pendingRows, r)}
              />
            ))}
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="history" pt="md">
          <DecidedHistory rows={(all.data ?? []).filter((r) => r.status !== 'pending').filter(match)} nameOf={nameOf} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
