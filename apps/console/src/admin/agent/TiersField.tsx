import { ActionIcon, Button, Card, Group, NumberInput, Stack, TagsInput, Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import { asError, isObject, problemsAt, stringList } from './agent-config';
import { CelField } from './CelField';

export const APPROVER_KINDS = ['org_admins', 'org_members', 'agent_owner', 'initiator', 'channel', 'role:', 'users:'];

type Tier = Record<string, unknown>;

/**
 * `confirmation.tiers`: the first tier whose condition holds on the args sets how many distinct approvals are
 * needed, and from whom. Each condition is checked and tried on the example args by the server as it is typed.
 */
export function TiersField(props: {
  tiers: unknown;
  onChange: (tiers: Tier[] | undefined) => void;
  problems: string[];
}) {
  const tiers = Array.isArray(props.tiers) ? props.tiers.map((t) => (isObject(t) ? t : {})) : [];
  const [exampleText, setExampleText] = useState('{ "amount": 68000 }');
  let example: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(exampleText);
    example = isObject(parsed) ? parsed : null;
  } catch {
    example = null;
  }
  const put = (i: number, key: string, value: unknown) =>
    props.onChange(tiers.map((t, j) => (j !== i ? t : value === undefined ? omit(t, key) : { ...t, [key]: value })));
  const remove = (i: number) => props.onChange(tiers.length > 1 ? tiers.filter((_, j) => j !== i) : undefined);
  const add = () => props.onChange([...tiers, { when: '', approvals: 1 }]);
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>
        Tiers
      </Text>
      <Text size="xs" c="dimmed">
        The first tier whose condition holds decides how many approvals are needed and from whom.
      </Text>
      {tiers.map((tier, i) => {
        const at = new RegExp(`^model_config_json\\.confirmation\\.tiers\\[${i}\\]`);
        const mine = problemsAt(props.problems, at);
        return (
          <Card key={i} withBorder padding="xs" role="group" aria-label={`Tier ${i + 1}`}>
            <Stack gap="xs">
              <CelField
                label={`Tier ${i + 1} applies when (CEL)`}
                value={typeof tier.when === 'string' ? tier.when : ''}
                example={example}
                onChange={(v) => put(i, 'when', v)}
                extraError={asError(mine.filter((p) => /\.when\b/.test(p) && !/approvals|approvers/.test(p)))}
              />
              <Group grow align="flex-start">
                <NumberInput
                  label={`Tier ${i + 1} approvals`}
                  min={1}
                  max={5}
                  allowDecimal={false}
                  value={typeof tier.approvals === 'number' ? tier.approvals : ''}
                  onChange={(v) => put(i, 'approvals', typeof v === 'number' ? v : undefined)}
                  error={asError(mine.filter((p) => /approvals|distinct approvers/.test(p)))}
                />
                <TagsInput
                  label={`Tier ${i + 1} approvers`}
                  description="Empty: the policy's approvers"
                  data={APPROVER_KINDS}
                  value={stringList(tier.approvers)}
                  onChange={(v) => put(i, 'approvers', v.length ? v : undefined)}
                  error={asError(mine.filter((p) => /\.approvers\b/.test(p)))}
                />
              </Group>
              <Group justify="flex-end">
                <ActionIcon variant="subtle" color="red" aria-label={`Remove tier ${i + 1}`} onClick={() => remove(i)}>
                  ✕
                </ActionIcon>
              </Group>
            </Stack>
          </Card>
        );
      })}
      <Group>
        <Button variant="light" size="xs" onClick={add}>
          Add tier
        </Button>
      </Group>
      {tiers.length > 0 && (
        <Textarea
          label="Example args (JSON)"
          description="Each condition is tried on these args as you type"
          autosize
          minRows={1}
          styles={{ input: { fontFamily: 'monospace' } }}
          value={exampleText}
          onChange={(e) => setExampleText(e.currentTarget.value)}
          error={example ? undefined : 'Not a JSON object'}
        />
      )}
    </Stack>
  );
}

function omit(t: Tier, key: string): Tier {
  const { [key]: _dropped, ...rest } = t;
  return rest;
}
