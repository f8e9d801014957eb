import { Button, Card, Group, Select, Stack, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { data, http } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';
import type { ConfirmationRow } from './Approvals';

/**
 * "Not mine to decide": hand a pending request to another member. Whom it may go to is the server's call (the
 * request's approver policy, never fewer distinct approvers): its 400/409 message is shown here as it is.
 */
export function ReassignControl({ row }: { row: ConfirmationRow }) {
  const [open, setOpen] = useState(false);
  const [to, setTo] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const queries = useQueryClient();
  const users = useQuery({ queryKey: ['users'], queryFn: () => data(http.GET('/api/users')), enabled: open });
  const reassign = useMutation({
    mutationFn: () =>
      data(
        http.POST('/api/confirmations/{id}/reassign', {
          params: { path: { id: row.id } },
          body: { to: to ?? '', ...(reason.trim() ? { reason: reason.trim() } : {}) },
        }),
      ),
    onSuccess: () => {
      notifications.show({ color: 'green', message: `Reassigned ${row.tool} to ${to}` });
      setOpen(false);
      void queries.invalidateQueries({ queryKey: ['confirmations'] });
    },
  });
  if (!open)
    return (
      <Button variant="subtle" onClick={() => setOpen(true)}>
        Reassign…
      </Button>
    );
  const options = (users.data ?? []).map((u) => ({ value: u.sub, label: u.name ? `${u.name} (${u.sub})` : u.sub }));
  return (
    <Card
      withBorder
      padding="xs"
      component="form"
      aria-label="Reassign"
      onSubmit={(e) => {
        e.preventDefault();
        reassign.mutate();
      }}
    >
      <Stack gap="xs">
        <Group align="flex-end">
          <Select label="Reassign to" searchable data={options} value={to} onChange={setTo} w={260} />
          <TextInput label="Why (optional)" value={reason} onChange={(e) => setReason(e.currentTarget.value)} w={260} />
          <Button type="submit" disabled={!to} loading={reassign.isPending}>
            Reassign
          </Button>
          <Button
            variant="default"
            onClick={() => {
              setOpen(false);
              reassign.reset();
            }}
          >
            Cancel
          </Button>
        </Group>
        <ErrorAlert error={reassign.error} what="Not reassigned" />
      </Stack>
    </Card>
  );
}
