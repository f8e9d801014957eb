import { Alert, Button, Group, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { data, http } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';

/**
 * "Verify chain": the server recomputes the org's hash chain over the range
 * and names the first link that does not hold.
 */
export function ChainVerify({ from, to }: { from?: string; to?: string }) {
  const verify = useMutation({
    mutationFn: () =>
      data(http.GET('/api/audit/verify', { params: { query: { ...(from ? { from } : {}), ...(to ? { to } : {}) } } })),
  });
  const r = verify.data;
  return (
    <Group align="flex-start">
      {/* Filled (white on blue 8, blue 9 under the pointer):
          the light variant under the pointer is blue 9 on blue 3, 4.0:1. */}
      <Button loading={verify.isPending} onClick={() => verify.mutate()}>
        Verify chain
      </Button>
      <div role="status" aria-live="polite" style={{ flex: 1 }}>
        <ErrorAlert error={verify.error} what="The chain could not be verified" />
        {r?.valid && (
          <Alert color="green" title="The chain holds" data-testid="chain-result" data-valid="true">
            {r.rows} event{r.rows === 1 ? '' : 's'} checked
            {r.first_seq !== null ? ` (#${r.first_seq} to #${r.last_seq})` : ''}: every hash matches its event and the
            one before it.{' '}
            {r.last_hash && (
              <Text span size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                Last hash {r.last_hash}
              </Text>
            )}
          </Alert>
        )}
        {r && !r.valid && (
          <Alert color="red" title="The chain is broken" data-testid="chain-result" data-valid="false">
            {r.first_broken
              ? `First broken link: #${r.first_broken.seq} ${r.first_broken.action} ` +
                `(${r.first_broken.occurred_at}): ${r.first_broken.reason}.`
              : 'A link does not hold.'}{' '}
            {r.rows} events checked.
          </Alert>
        )}
      </div>
    </Group>
  );
}
