import { Button, Card, Checkbox, Group, Select, Stack, Textarea, TextInput } from '@mantine/core';
import type { Schemas } from '../api/typed';
import { celProblem } from './cel';

export interface Action {
  name: string;
  method: string;
  path: string;
  description: string;
  parameters: string;
  requires_confirmation: boolean;
  requires_confirmation_when: string;
  /** Kept from the stored action when it differs from the default (every method but GET writes). */
  write?: boolean;
}

export const blankAction = (): Action => ({
  name: '',
  method: 'POST',
  path: '/',
  description: '',
  parameters: '',
  requires_confirmation: false,
  requires_confirmation_when: '',
});

export function ActionForm({
  a,
  i,
  onChange,
  onRemove,
}: {
  a: Action;
  i: number;
  onChange: (a: Action) => void;
  onRemove: () => void;
}) {
  const cel = celProblem(a.requires_confirmation_when);
  let paramsError: string | undefined;
  if (a.parameters.trim()) {
    try {
      JSON.parse(a.parameters);
    } catch {
      paramsError = 'Not valid JSON';
    }
  }
  const set = (patch: Partial<Action>) => onChange({ ...a, ...patch });
  return (
    <Card withBorder padding="sm" role="group" aria-label={`Action ${i + 1}`}>
      <Stack gap="xs">
        <Group grow>
          <TextInput
            label="Action name"
            value={a.name}
            onChange={(e) => set({ name: e.currentTarget.value })}
            required
          />
          <Select
            label="Method"
            data={['GET', 'POST', 'PUT', 'PATCH', 'DELETE']}
            value={a.method}
            onChange={(v) => set({ method: v ?? 'POST' })}
            allowDeselect={false}
          />
        </Group>
        <TextInput
          label="Path"
          description="{name} segments come from the args"
          value={a.path}
          onChange={(e) => set({ path: e.currentTarget.value })}
        />
        <TextInput
          label="Description"
          value={a.description}
          onChange={(e) => set({ description: e.currentTarget.value })}
        />
        <Textarea
          label="Parameters (JSON Schema)"
          autosize
          minRows={1}
          styles={{ input: { fontFamily: 'monospace' } }}
          value={a.parameters}
          onChange={(e) => set({ parameters: e.currentTarget.value })}
          error={paramsError}
        />
        <Checkbox
          label="Always requires confirmation"
          checked={a.requires_confirmation}
          onChange={(e) => set({ requires_confirmation: e.currentTarget.checked })}
        />
        <TextInput
          label="Requires confirmation when (CEL)"
          description="e.g. args.amount > 50000"
          styles={{ input: { fontFamily: 'monospace' } }}
          value={a.requires_confirmation_when}
          onChange={(e) => set({ requires_confirmation_when: e.currentTarget.value })}
          error={cel}
        />
        <Group>
          <Button size="xs" variant="subtle" color="red" onClick={onRemove}>
            Remove action
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

export function toBody(name: string, baseUrl: string, actions: Action[]) {
  return {
    name,
    base_url: baseUrl,
    actions: actions.map((a) => ({
      name: a.name,
      method: a.method,
      path: a.path,
      ...(a.description ? { description: a.description } : {}),
      ...(a.parameters.trim() ? { parameters: JSON.parse(a.parameters) as Record<string, unknown> } : {}),
      ...(a.requires_confirmation ? { requires_confirmation: true } : {}),
      ...(a.requires_confirmation_when.trim() ? { requires_confirmation_when: a.requires_confirmation_when } : {}),
      ...(a.write !== undefined ? { write: a.write } : {}),
    })),
  };
}

/** A stored action as the form edits it. */
export function actionOf(a: Schemas['ConnectorActionResponse']): Action {
  return {
    name: a.name,
    method: a.method,
    path: a.path,
    description: a.description,
    parameters: Object.keys(a.parameters).length ? JSON.stringify(a.parameters, null, 2) : '',
    requires_confirmation: a.requires_confirmation,
    requires_confirmation_when: a.requires_confirmation_when ?? '',
    ...(a.write !== (a.method !== 'GET') ? { write: a.write } : {}),
  };
}

export const actionsInvalid = (actions: Action[]) =>
  actions.some((a) => celProblem(a.requires_confirmation_when) !== null || !a.name);
