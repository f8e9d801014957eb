import { Badge, Card, Checkbox, Group, Stack, Text, Textarea, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { parseDocument } from 'yaml';
import { data, http } from '../api/typed';
import { SchemaForm, type JsonSchema } from '../ui/SchemaForm';
import { ErrorAlert } from '../ui/ErrorAlert';

export interface HookInfo {
  name: string;
  point: string;
  priority: number;
  description: string;
  config_schema: JsonSchema | null;
  auto_attached: boolean;
}
export interface ClassHook {
  name: string;
  config?: Record<string, unknown>;
}
export interface HooksValue {
  class_hooks: ClassHook[];
  yaml?: string;
}

export const useHookCatalog = () =>
  useQuery({ queryKey: ['hooks'], queryFn: () => data(http.GET('/api/hooks')), staleTime: 60_000 });

/** `class_hooks` entries are names or `{ name, config }`; the editor works on the object form. */
export function normaliseHooks(raw: unknown): HooksValue {
  const h = (raw ?? {}) as { class_hooks?: Array<string | ClassHook>; yaml?: string };
  return { class_hooks: (h.class_hooks ?? []).map((e) => (typeof e === 'string' ? { name: e } : e)), yaml: h.yaml };
}

/** YAML syntax errors as the admin types, with line numbers; the server checks the meaning on save. */
export function yamlProblems(text: string | undefined): string[] {
  if (!text?.trim()) return [];
  const doc = parseDocument(text, { prettyErrors: true });
  return doc.errors.map((e) => e.message.split('\n')[0]);
}

/**
 * The agent's hooks: the catalog from GET /api/hooks, a generated settings form per attached hook, YAML hooks.
 * `orgHooks`: class hooks the org's policy attaches to every agent (shown checked and locked); `problems`: the
 * server's problems with `hooks.*` (checked as typed), shown at the class hooks and at the YAML field.
 */
export function HooksEditor({
  value,
  onChange,
  orgHooks = [],
  problems: serverProblems = [],
}: {
  value: HooksValue;
  onChange: (v: HooksValue) => void;
  orgHooks?: string[];
  problems?: string[];
}) {
  const catalog = useHookCatalog();
  const attached = (name: string) => value.class_hooks.find((h) => h.name === name);
  const toggle = (name: string, on: boolean) =>
    onChange({
      ...value,
      class_hooks: on ? [...value.class_hooks, { name }] : value.class_hooks.filter((h) => h.name !== name),
    });
  const setConfig = (name: string, config: Record<string, unknown>) =>
    onChange({
      ...value,
      class_hooks: value.class_hooks.map((h) =>
        h.name === name ? { name, ...(Object.keys(config).length ? { config } : {}) } : h,
      ),
    });
  const syntax = yamlProblems(value.yaml);
  const problems = syntax.length ? syntax : serverProblems.filter((p) => p.startsWith('hooks.yaml'));
  const classProblems = serverProblems.filter((p) => p.startsWith('hooks.class_hooks'));
  return (
    <Stack>
      <Title order={4}>Hooks</Title>
      <ErrorAlert error={catalog.error} what="The hook catalog could not be loaded" />
      {classProblems.map((p) => (
        <Text key={p} size="sm" c="red.8" role="alert">
          {p}
        </Text>
      ))}
      {catalog.data?.map((h) => (
        <Card key={h.name} withBorder padding="sm" data-testid={`hook-${h.name}`}>
          <Group justify="space-between" wrap="nowrap">
            {orgHooks.includes(h.name) ? (
              <Checkbox
                label={
                  <Text fw={600} ff="monospace" span>
                    {h.name}
                  </Text>
                }
                aria-label={`${h.name} (org policy, in force)`}
                checked
                disabled
                readOnly
              />
            ) : h.auto_attached ? (
              <Text fw={600} ff="monospace">
                {h.name}
              </Text>
            ) : (
              <Checkbox
                label={
                  <Text fw={600} ff="monospace" span>
                    {h.name}
                  </Text>
                }
                aria-label={`Attach ${h.name}`}
                checked={!!attached(h.name)}
                onChange={(e) => toggle(h.name, e.currentTarget.checked)}
              />
            )}
            <Group gap={4}>
              <Badge variant="light">{h.point}</Badge>
              <Badge variant="outline">priority {h.priority}</Badge>
              {h.auto_attached && <Badge color="gray">always on</Badge>}
              {orgHooks.includes(h.name) && <Badge color="grape">org policy</Badge>}
            </Group>
          </Group>
          <Text size="sm" c="dimmed" mt={4}>
            {h.description}
          </Text>
          {attached(h.name) && h.config_schema && !orgHooks.includes(h.name) && (
            <Card mt="xs" padding="xs" bg="gray.0">
              <SchemaForm
                idPrefix={h.name}
                schema={h.config_schema}
                value={attached(h.name)?.config ?? {}}
                onChange={(c) => setConfig(h.name, c)}
              />
            </Card>
          )}
        </Card>
      ))}
      <Textarea
        label="YAML hooks"
        description="Command hooks: event, matcher, run (see README › Hooks)"
        autosize
        minRows={3}
        styles={{ input: { fontFamily: 'monospace' } }}
        value={value.yaml ?? ''}
        error={problems.length ? problems.join('\n') : undefined}
        onChange={(e) => onChange({ ...value, yaml: e.currentTarget.value || undefined })}
      />
    </Stack>
  );
}
