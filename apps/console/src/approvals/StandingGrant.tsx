import { Group, Switch, TextInput } from '@mantine/core';

/** A standing approval asked for with the decision: calls of this tool in this run whose args satisfy `when`. */
export interface Standing {
  when: string;
  max: number;
}

/**
 * "Also approve similar calls in this run": off (null), or a CEL bound (prefilled from a numeric amount) and at most
 * this many calls.
 */
export function StandingGrant({
  standing,
  onChange,
  amount,
}: {
  standing: Standing | null;
  onChange: (standing: Standing | null) => void;
  amount: number | null;
}) {
  return (
    <>
      <Switch
        label="Also approve similar calls in this run"
        checked={standing !== null}
        onChange={(e) =>
          onChange(
            e.currentTarget.checked ? { when: amount !== null ? `args.amount <= ${amount}` : 'true', max: 3 } : null,
          )
        }
      />
      {standing && (
        <Group align="flex-end">
          <TextInput
            label="Calls of this tool whose args satisfy (CEL)"
            value={standing.when}
            onChange={(e) => onChange({ ...standing, when: e.currentTarget.value })}
            w={320}
            ff="monospace"
          />
          <TextInput
            label="At most (calls, this one included)"
            type="number"
            value={String(standing.max)}
            onChange={(e) => onChange({ ...standing, max: Number(e.currentTarget.value) })}
            w={200}
          />
        </Group>
      )}
    </>
  );
}
