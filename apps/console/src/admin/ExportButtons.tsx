import { Button, Group } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { toastError } from '../ui/errors';
import type { ExportFormat } from './audit-export';

/** "Export CSV" / "Export JSONL": the server streams the whole filtered range; the button waits for it. */
export function ExportButtons({ what, run }: { what: string; run: (format: ExportFormat) => Promise<void> }) {
  const exporting = useMutation({
    mutationFn: run,
    onError: (err) => toastError(`The ${what} could not be exported`, err),
  });
  return (
    <Group gap="xs">
      {(['csv', 'jsonl'] as const).map((format) => (
        <Button
          key={format}
          variant="default"
          loading={exporting.isPending && exporting.variables === format}
          onClick={() => exporting.mutate(format)}
        >
          Export {format.toUpperCase()}
        </Button>
      ))}
    </Group>
  );
}
