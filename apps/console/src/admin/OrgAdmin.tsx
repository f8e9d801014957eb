import { Card, Stack, Switch, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { data, http } from '../api/typed';
import { toastError } from '../ui/errors';
import { ErrorAlert } from '../ui/ErrorAlert';

/** Org settings: the read-only switch that makes read_only_guard block every write tool. */
export function OrgAdmin() {
  const queries = useQueryClient();
  const org = useQuery({ queryKey: ['org'], queryFn: () => data(http.GET('/api/org')) });
  const set = useMutation({
    mutationFn: (readOnly: boolean) => data(http.PUT('/api/org/read-only', { body: { read_only: readOnly } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['org'] }),
    onError: (err) => toastError('The switch was not changed', err),
  });
  return (
    <Stack maw={700}>
      <Title order={1} size="h2">
        Organisation {org.data?.name ?? org.data?.external_id ?? ''}
      </Title>
      <ErrorAlert error={org.error} what="The organisation could not be loaded" />
      <Card withBorder>
        <Switch
          label="Read-only mode"
          description={
            'While on, every write tool (POST/PUT/PATCH/DELETE connector actions) is blocked by read_only_guard; ' +
            'reads still run.'
          }
          checked={org.data?.read_only ?? false}
          disabled={!org.data || set.isPending}
          onChange={(e) => set.mutate(e.currentTarget.checked)}
        />
        {org.data?.read_only && (
          <Text mt="xs" c="orange" role="status">
            The organisation is read-only: agents cannot change anything.
          </Text>
        )}
      </Card>
    </Stack>
  );
}
