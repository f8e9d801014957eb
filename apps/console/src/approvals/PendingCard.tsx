import {
  Alert,
  Anchor,
  Badge,
  Blockquote,
  Button,
  Card,
  Code,
  Group,
  Stack,
  Switch,
  Table,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { data, http } from '../api/typed';
import { toastError } from '../ui/errors';
import { decisiveFirst } from '../ui/JsonBlock';
import { asText } from '../ui/as-text';
import { formatValue } from '../ui/format-value';
import { useCountdown } from '../ui/useCountdown';
import { useSession } from '../auth/SessionContext';
import { isAdmin } from '../auth/session';
import { Link } from 'react-router-dom';
import { SchemaForm, type JsonSchema } from '../ui/SchemaForm';
import { schemaProblems } from '../ui/schema-problems';
import { ReassignControl } from './ReassignControl';

import type { ConfirmationRow } from './Approvals';

function ArgsTable({ args }: { args: Record<string, unknown> }) {
  return (
    <Table withRowBorders={false} verticalSpacing={2} aria-label="Arguments">
      <Table.Tbody>
        {decisiveFirst(args).map(([k, v]) => (
          <Table.Tr key={k}>
            <Table.Td w={140}>
              <Text size="sm" c="dimmed">
                {k}
              </Text>
            </Table.Td>
            <Table.Td>
              <Text size="sm" ff="monospace">
                {formatValue(k, v)}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** How long is left, ticking; the clock time on hover. */
function Expiry({ at }: { at: string }) {
  const left = useCountdown(at);
  return (
    <Text size="xs" c={left === '0:00' ? 'red' : 'dimmed'} title={`expires at ${new Date(at).toLocaleTimeString()}`}>
      {left === '0:00' ? 'expired' : `expires in ${left}`}
    </Text>
  );
}

type Values = Record<string, unknown>;

/** The form a decision fills: a question's answer form, or the action's parameters for an edit. */
function decisionForm(row: ConfirmationRow, question: boolean): JsonSchema {
  const schema = (row.args_schema ?? {}) as JsonSchema;
  return question ? (schema.properties?.answer ?? { type: 'object', properties: {} }) : schema;
}

/** A question's starting answer: the first choice of each enum, nothing else prefilled. */
function answerTemplate(form: JsonSchema): Values {
  return Object.fromEntries(Object.entries(form.properties ?? {}).flatMap(([k, p]) => (p.enum?.length ? [[k, p.enum[0]]] : [])));
}

export function PendingCard({
  row,
  nameOf,
  focused,
  turn,
}: {
  row: ConfirmationRow;
  nameOf: (id: string | null) => string;
  focused: boolean;
  turn: ConfirmationRow[];
}) {
  const question = row.args_schema?.['x-warden-human-task'] === true;
  const admin = isAdmin(useSession().session);
  const [reason, setReason] = useState('');
  // Approve for this run: a CEL bound (prefilled from a numeric amount) and at most this many calls.
  const [standing, setStanding] = useState<{ when: string; max: number } | null>(null);
  const amount = typeof row.args.amount === 'number' ? row.args.amount : null;
  const form = decisionForm(row, question);
  const [edited, setEdited] = useState<Values | null>(question ? answerTemplate(form) : null);
  const problems = edited ? schemaProblems(form, edited) : {};
  const blocked = Object.keys(problems).length > 0;
  const queries = useQueryClient();
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'reject') => {
      const edit = decision === 'approve' && edited !== null ? edited : undefined;
      const change = edit ? (question ? { answer: edit } : { args: edit }) : {};
      const grant = decision === 'approve' && standing ? { standing: { when: standing.when, max_calls: standing.max } } : {};
      return data(
        http.POST('/api/confirmations/{id}/decision', {
          params: { path: { id: row.id } },
          body: { decision, ...(reason ? { reason } : {}), ...change, ...grant },
        }),
      );
    },
    onSuccess: (_, decision) => {
      notifications.show({
        color: 'green',
        message: `${decision === 'approve' ? (edited !== null ? 'Approved with changes' : 'Approved') : 'Rejected'}: ${row.tool}`,
      });
      void queries.invalidateQueries({ queryKey: ['confirmations'] });
    },
    onError: (err) => toastError('The decision was not recorded', err),
  });
  const label = `${row.tool} ${asText(row.args.id ?? '')}`.trim();
  return (
    <Card
      withBorder
      data-testid="pending-confirmation"
      aria-label={`Approval request ${label}`}
      bd={focused ? '2px solid var(--mantine-color-blue-5)' : undefined}
    >
      <Stack gap="xs">
        <Group justify="space-between">
          <Text fw={600} ff="monospace">
            {row.tool}
          </Text>
          <Expiry at={row.expires_at} />
        </Group>
        <Text size="sm">
          Agent <b>{row.agent_name ?? row.agent_id}</b> · requested by {nameOf(row.requested_by)} ·{' '}
          {new Date(row.created_at).toLocaleString()}
          {admin && (
            <>
              {' · '}
              <Anchor component={Link} to={`/admin/runs/${row.run_id}`}>
                open the run
              </Anchor>
            </>
          )}
        </Text>
        {row.approvals_required > 1 && (
          <Text size="sm" c="orange">
            {row.approvals_progress}: {row.approvals_required} distinct approvers needed
          </Text>
        )}
        {row.ask_reason && (
          <Alert color="yellow" title="Why a hook asks">
            {row.ask_reason}
          </Alert>
        )}
        {row.trigger && (
          <Text size="sm" data-testid="approval-trigger">
            Why: the rule <Code>{row.trigger}</Code> holds for these arguments
          </Text>
        )}
        {row.member_message && (
          <Blockquote p="xs" data-testid="member-message" aria-label="The member's message">
            <Text size="sm">{row.member_message}</Text>
          </Blockquote>
        )}
        {(row.escalated_at ?? row.reminded_at) && (
          <Badge color="orange" variant="light" data-testid="nudged">
            {row.escalated_at ? 'escalated' : 'reminder sent'}
          </Badge>
        )}
        {turn.length > 1 && (
          <Badge variant="light">
            call {turn.indexOf(row) + 1} of {turn.length} in one model turn
          </Badge>
        )}
        {question && <Text fw={600}>{asText(row.args.question ?? '')}</Text>}
        <ArgsTable args={row.args} />
        {edited !== null && (
          <Card withBorder padding="xs" aria-label={question ? 'Answer' : 'Edited arguments'}>
            <Text size="sm" fw={600} mb={4}>
              {question ? 'Your answer' : 'Arguments to run with'}
            </Text>
            <SchemaForm
              schema={form}
              value={edited}
              onChange={setEdited}
              idPrefix={`decision-${row.id}`}
              problems={problems}
              emptyText="Nothing to fill in."
            />
          </Card>
        )}
        <Textarea label="Reason (optional)" value={reason} onChange={(e) => setReason(e.currentTarget.value)} autosize minRows={1} />
        {!question && row.approvals_required === 1 && (
          <Switch
            label="Also approve similar calls in this run"
            checked={standing !== null}
            onChange={(e) =>
              setStanding(e.currentTarget.checked ? { when: amount !== null ? `args.amount <= ${amount}` : 'true', max: 3 } : null)
            }
          />
        )}
        {standing && (
          <Group align="flex-end">
            <TextInput
              label="Calls of this tool whose args satisfy (CEL)"
              value={standing.when}
              onChange={(e) => setStanding({ ...standing, when: e.currentTarget.value })}
              w={320}
              ff="monospace"
            />
            <TextInput
              label="At most (calls, this one included)"
              type="number"
              value={String(standing.max)}
              onChange={(e) => setStanding({ ...standing, max: Number(e.currentTarget.value) })}
              w={200}
            />
          </Group>
        )}
        <Group>
          <Button color="green" loading={decide.isPending} disabled={blocked} onClick={() => decide.mutate('approve')}>
            {question ? 'Answer' : edited === null ? 'Approve' : 'Approve with changes'}
          </Button>
          <Button color="red" variant="light" loading={decide.isPending} onClick={() => decide.mutate('reject')}>
            Reject
          </Button>
          {turn.length > 1 && turn[0] === row && (
            <Button
              variant="light"
              loading={decide.isPending}
              onClick={() =>
                void Promise.all(
                  turn.map((r) =>
                    data(
                      http.POST('/api/confirmations/{id}/decision', { params: { path: { id: r.id } }, body: { decision: 'approve' } }),
                    ).catch((err: unknown) => toastError(`${r.tool} was not approved`, err)),
                  ),
                ).then(() => queries.invalidateQueries({ queryKey: ['confirmations'] }))
              }
            >
              Approve all {turn.length}
            </Button>
          )}
          {!question && row.args_schema && row.approvals_required === 1 && (
            <Button variant="subtle" onClick={() => setEdited(edited === null ? { ...row.args } : null)}>
              {edited === null ? 'Edit arguments' : 'Cancel edit'}
            </Button>
          )}
        </Group>
        <ReassignControl row={row} />
      </Stack>
    </Card>
  );
}
