import { Button, Group } from '@mantine/core';
import { useState } from 'react';

/** Deleting takes two clicks: the first asks "Really delete …?" in place (no browser dialog), the second deletes. */
export function DeleteButton({ what, loading, onDelete }: { what: string; loading?: boolean; onDelete: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <Button size="xs" variant="subtle" color="red" aria-label={`Delete ${what}`} onClick={() => setAsking(true)}>
        Delete
      </Button>
    );
  return (
    <Group gap={4} wrap="nowrap">
      <Button size="xs" color="red" loading={loading} onClick={onDelete}>
        Really delete {what}?
      </Button>
      <Button size="xs" variant="default" onClick={() => setAsking(false)}>
        Keep
      </Button>
    </Group>
  );
}
