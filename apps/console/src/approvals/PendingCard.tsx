import { Button, Card, Group, Stack, Text, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { data, http } from '../api/typed';
import { toastError } from '../ui/errors';
import { asText } from '../ui/as-text';
import { useSession } from '../auth/SessionContext';
import { isAdmin } from '../auth/session';
import { SchemaForm, type JsonSchema } from '../ui/SchemaForm';
import { schemaProblems } from '../ui/schema-problems';
import { ReassignControl } from './ReassignControl';
import { ArgsTable, Expiry } from './CardParts';
import { cardAfter, cardShortcuts, onCardKey, type DecisionKeys } from './decision-keys';
import { useApproveTurn } from './useApproveTurn';
import { RequestFacts } from './RequestFacts';
import { StandingGrant, type Standing } from './StandingGrant';

import type { ConfirmationRow } from './Approvals';

type Values = Record<string, unknown>;

/** The form a decision fills: a question's answer form, or the action's parameters for an edit. */
function decisionForm(row: ConfirmationRow, question: boolean): JsonSchema {
  const schema = (row.args_schema ?? {}) as JsonSchema;
  return question ? (schema.properties?.answer ?? { type: 'object', properties: {} }) : schema;
}

/** A question's starting answer: the first choice of each enum, nothing else prefilled. */
function answerTemplate(form: JsonSchema): Values {
  return Object.fromEntries(
    Object.entries(form.properties ?? {}).flatMap(([k, p]) => (p.enum?.length ? [[k, p.enum[0]]] : [])),
  );
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
  const [standing, setStanding] = useState<Standing | null>(null);
  const amount = typeof row.args.amount === 'number' ? row.args.amount : null;
  const form = decisionForm(row, question);
  const [edited, setEdited] = useState<Values | null>(question ? answerTemplate(form) : null);
  const problems = edited ? schemaProblems(form, edited) : {};
  const blocked = Object.keys(problems).length > 0;
  const queries = useQueryClient();
  const card = useRef<HTMLDivElement>(null);
  const editForm = useRef<HTMLDivElement>(null);
  // Where the focus goes once the decision is recorded (decision-keys.ts): read when it is made.
  const after = useRef<HTMLElement | null>(null);
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'reject') => {
      const edit = decision === 'approve' && edited !== null ? edited : undefined;
      const change = edit ? (question ? { answer: edit } : { args: edit }) : {};
      const grant =
        decision === 'approve' && standing ? { standing: { when: standing.when, max_calls: standing.max } } : {};
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
        message: `${decided(decision, edited !== null)}: ${row.tool}`,
      });
      void queries.invalidateQueries({ queryKey: ['confirmations'] });
      after.current?.focus();
    },
    onError: (err) => toastError('The decision was not recorded', err),
  });
  const approveTurn = useApproveTurn(turn, () => after.current?.focus());
  const editing = edited !== null;
  const canEdit = !question && !!row.args_schema && row.approvals_required === 1;
  const toggleEdit = () => setEdited(editing ? null : { ...row.args });
  // An opened edit form takes the focus (its first field), so the keyboard goes on where the eyes do.
  useEffect(() => {
    if (editing && !question) editForm.current?.querySelector<HTMLElement>('input, textarea, select')?.focus();
  }, [editing, question]);
  const busy = decide.isPending || approveTurn.isPending;
  const keys: DecisionKeys = {
    approve: () => {
      if (blocked || busy) return;
      after.current = cardAfter(card.current, [row.id]);
      decide.mutate('approve');
    },
    reject: () => {
      if (busy) return;
      after.current = cardAfter(card.current, [row.id]);
      decide.mutate('reject');
    },
    toggleEdit: canEdit ? toggleEdit : undefined,
    approveAll:
      turn.length > 1 && turn[0] === row
        ? () => {
            if (busy) return;
            after.current = cardAfter(
              card.current,
              turn.map((r) => r.id),
            );
            approveTurn.mutate();
          }
        : undefined,
  };
  const label = `${row.tool} ${asText(row.args.id ?? '')}`.trim();
  return (
    <Card
      ref={card}
      withBorder
      role="group"
      tabIndex={0}
      data-testid="pending-confirmation"
      data-confirmation-id={row.id}
      className="approval-card"
      aria-label={`Approval request ${label}`}
      aria-keyshortcuts={cardShortcuts(keys)}
      onKeyDown={(e) => onCardKey(e, keys)}
      bd={focused ? '2px solid var(--mantine-color-blue-5)' : undefined}
    >
      <Stack gap="xs">
        <Group justify="space-between">
          <Text fw={600} ff="monospace">
            {row.tool}
          </Text>
          <Expiry at={row.expires_at} />
        </Group>
        <RequestFacts row={row} nameOf={nameOf} turn={turn} admin={admin} />
        {question && <Text fw={600}>{asText(row.args.question ?? '')}</Text>}
        <ArgsTable args={row.args} />
        {edited !== null && (
          <Card ref={editForm} withBorder padding="xs" aria-label={question ? 'Answer' : 'Edited arguments'}>
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
        <Textarea
          label="Reason (optional)"
          value={reason}
          onChange={(e) => setReason(e.currentTarget.value)}
          autosize
          minRows={1}
        />
        {!question && row.approvals_required === 1 && (
          <StandingGrant standing={standing} onChange={setStanding} amount={amount} />
        )}
        <Group>
          <Button color="green" loading={decide.isPending} disabled={blocked} onClick={keys.approve}>
            {question ? 'Answer' : editing ? 'Approve with changes' : 'Approve'}
          </Button>
          <Button color="red" variant="light" loading={decide.isPending} onClick={keys.reject}>
            Reject
          </Button>
          {keys.approveAll && (
            <Button variant="light" loading={approveTurn.isPending} onClick={keys.approveAll}>
              Approve all {turn.length}
            </Button>
          )}
          {canEdit && (
            <Button variant="subtle" onClick={toggleEdit}>
              {editing ? 'Cancel edit' : 'Edit arguments'}
            </Button>
          )}
        </Group>
        <ReassignControl row={row} />
      </Stack>
    </Card>
  );
}

/** What the toast says a decision was. */
function decided(decision: string, edited: boolean): string {
  if (decision !== 'approve') return 'Rejected';
  return edited ? 'Approved with changes' : 'Approved';
}
