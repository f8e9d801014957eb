import { Button, Card, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { data, http, type Schemas } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';

type Platform = 'feishu' | 'slack' | 'wecom';
const PLATFORMS: Array<{ value: Platform; label: string; field: keyof Schemas['IdentitiesResponse']; hint: string }> = [
  { value: 'feishu', label: 'Feishu', field: 'feishu_open_id', hint: 'your Feishu open id, e.g. ou_…' },
  { value: 'slack', label: 'Slack', field: 'slack_user_id', hint: 'your Slack member id, e.g. U012AB3CD' },
  { value: 'wecom', label: 'WeCom', field: 'wecom_user_id', hint: 'your WeCom user id' },
];

/**
 * The approver's own chat accounts: link one with proof (Warden sends a one-time code to that account through one of
 * the org's channels; entering it here links it), or unlink one. A linked account's clicks on approval cards count
 * as this user's.
 */
export function ChatAccounts() {
  const queries = useQueryClient();
  const me = useQuery({ queryKey: ['me'], queryFn: () => data(http.GET('/api/me')) });
  const [platform, setPlatform] = useState<Platform>('feishu');
  const [account, setAccount] = useState('');
  const [code, setCode] = useState('');
  const start = useMutation({
    mutationFn: () => data(http.POST('/api/me/identities/link', { body: { platform, external_id: account.trim() } })),
    onSuccess: () => setCode(''),
  });
  const verify = useMutation({
    mutationFn: (linkId: string) =>
      data(http.POST('/api/me/identities/verify', { body: { link_id: linkId, code: code.trim() } })),
    onSuccess: (r) => {
      notifications.show({
        color: 'green',
        message: `Linked your ${platform} account ${start.data?.external_id ?? ''}`,
      });
      queries.setQueryData(
        ['me'],
        (old: Schemas['MeResponse'] | undefined) => old && { ...old, identities: r.identities },
      );
      start.reset();
      setAccount('');
    },
  });
  const unlink = useMutation({
    mutationFn: (field: string) =>
      data(
        http.PUT('/api/users/{sub}/identities', {
          params: { path: { sub: me.data?.sub ?? '' } },
          body: { [field]: null },
        }),
      ),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['me'] }),
  });
  const sent = start.data;
  const hint = PLATFORMS.find((p) => p.value === platform)?.hint;
  return (
    <Stack maw={760}>
      <Title order={1} size="h2">
        My chat accounts
      </Title>
      <Text size="sm" c="dimmed">
        Link your Feishu, Slack or WeCom account so that your taps on approval cards in chat count as yours.
      </Text>
      <ErrorAlert error={me.error ?? unlink.error} />
      <Table aria-label="Linked accounts" withTableBorder>
        <Table.Tbody>
          {PLATFORMS.map((p) => {
            const linked = me.data?.identities[p.field] ?? null;
            return (
              <Table.Tr key={p.value} data-platform={p.value}>
                <Table.Td w={120}>{p.label}</Table.Td>
                <Table.Td ff={linked ? 'monospace' : undefined}>{linked ?? 'not linked'}</Table.Td>
                <Table.Td w={140}>
                  {linked && (
                    <Button size="compact-sm" variant="subtle" color="red" onClick={() => unlink.mutate(p.field)}>
                      Unlink {p.label}
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
      <Card
        withBorder
        component="form"
        aria-label="Link an account"
        onSubmit={(e) => {
          e.preventDefault();
          start.mutate();
        }}
      >
        <Stack gap="sm">
          <Title order={3}>Link an account</Title>
          <Group align="flex-end">
            <Select
              label="Platform"
              data={PLATFORMS.map(({ value, label }) => ({ value, label }))}
              value={platform}
              onChange={(v) => {
                if (v) setPlatform(v);
              }}
              allowDeselect={false}
              w={140}
            />
            <TextInput
              label="Account id"
              description={hint}
              value={account}
              onChange={(e) => setAccount(e.currentTarget.value)}
              w={300}
            />
            <Button type="submit" disabled={!account.trim()} loading={start.isPending}>
              Send code
            </Button>
          </Group>
          <ErrorAlert error={start.error} what="No code was sent" />
        </Stack>
      </Card>
      {sent && (
        <Card
          withBorder
          component="form"
          aria-label="Enter the code"
          onSubmit={(e) => {
            e.preventDefault();
            verify.mutate(sent.link_id);
          }}
        >
          <Stack gap="sm">
            <Text size="sm" role="status">
              A 6-digit code was sent to {sent.platform} account {sent.external_id}; it is valid until{' '}
              {new Date(sent.expires_at).toLocaleTimeString()}.
            </Text>
            <Group align="flex-end">
              <TextInput
                label="Code"
                inputMode="numeric"
                maxLength={6}
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
                w={160}
              />
              <Button type="submit" disabled={!/^\d{6}$/.test(code.trim())} loading={verify.isPending}>
                Link account
              </Button>
            </Group>
            <ErrorAlert error={verify.error} what="Nothing was linked" />
          </Stack>
        </Card>
      )}
    </Stack>
  );
}
