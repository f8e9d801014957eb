import { NumberInput, Select, Stack, Switch, Text } from '@mantine/core';

const SCOPES = [
  { value: '', label: "As the agent's policy says (default)" },
  { value: 'initiator', label: 'The person who started the run' },
  { value: 'agent_owner', label: "The agent's owner" },
  { value: 'org_members', label: 'Any member of the organisation' },
  { value: 'org_admins', label: 'An organisation admin' },
];

type Conf = Record<string, unknown>;

/** The node's approval policy (`confirmation`): who approves (or answers), self-approval, how long to wait. */
export function ConfirmationFields({
  nodeType,
  value,
  onChange,
}: {
  nodeType: string;
  value: unknown;
  onChange: (c: Conf | undefined) => void;
}) {
  const conf: Conf = value && typeof value === 'object' ? (value as Conf) : {};
  const set = (k: string, v: unknown) => {
    const { [k]: _old, ...rest } = conf;
    const next = v === undefined || v === '' || v === false ? rest : { ...rest, [k]: v };
    onChange(Object.keys(next).length ? next : undefined);
  };
  const who = nodeType === 'human' ? 'Who answers' : 'Who approves';
  return (
    <Stack gap="xs" role="group" aria-label="Confirmation policy">
      <Text size="sm" fw={600}>
        {nodeType === 'human' ? 'Who may answer' : 'Approval policy'}
      </Text>
      <Select
        label={who}
        data={
          nodeType === 'agent'
            ? SCOPES
            : [{ value: '', label: 'The person who started the run (default)' }, ...SCOPES.slice(1)]
        }
        value={typeof conf.approver_scope === 'string' ? conf.approver_scope : ''}
        allowDeselect={false}
        onChange={(v) => set('approver_scope', v ?? '')}
      />
      <Switch
        label="Forbid self-approval (the person who started the run may not decide)"
        checked={conf.forbid_self_approval === true}
        onChange={(e) => set('forbid_self_approval', e.currentTarget.checked)}
      />
      <NumberInput
        label="Wait at most (seconds)"
        description="Empty: the default timeout"
        min={1}
        value={typeof conf.timeout_s === 'number' ? conf.timeout_s : ''}
        onChange={(v) => set('timeout_s', typeof v === 'number' ? v : undefined)}
      />
    </Stack>
  );
}
