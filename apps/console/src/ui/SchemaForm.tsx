import { NumberInput, Select, Stack, Switch, TagsInput, Text, TextInput } from '@mantine/core';
import { asText } from './as-text';

/** The subset of JSON Schema that hook config schemas use. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
}

type Values = Record<string, unknown>;

/** A form generated from a hook's config schema: one labelled field per property, typed by the schema. */
export function SchemaForm({
  schema,
  value,
  onChange,
  idPrefix,
}: {
  schema: JsonSchema;
  value: Values;
  onChange: (v: Values) => void;
  idPrefix: string;
}) {
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0)
    return (
      <Text size="sm" c="dimmed">
        This hook has no settings.
      </Text>
    );
  const set = (k: string, v: unknown) => {
    const { [k]: _previous, ...without } = value;
    onChange(v === undefined || v === '' || (Array.isArray(v) && v.length === 0) ? without : { ...value, [k]: v });
  };
  return (
    <Stack gap="xs">
      {props.map(([key, p]) => {
        const type = Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type;
        const common = {
          key,
          label: key,
          description: p.description,
          id: `${idPrefix}-${key}`,
          withAsterisk: schema.required?.includes(key),
        };
        const placeholder = p.default !== undefined ? `default ${JSON.stringify(p.default)}` : undefined;
        if (p.enum) {
          return (
            <Select
              {...common}
              data={p.enum.map(String)}
              value={value[key] === undefined ? null : asText(value[key])}
              onChange={(v) => set(key, v ?? undefined)}
              clearable
              placeholder={placeholder}
            />
          );
        }
        if (type === 'integer' || type === 'number') {
          return (
            <NumberInput
              {...common}
              min={p.minimum}
              max={p.maximum}
              allowDecimal={type === 'number'}
              placeholder={placeholder}
              value={(value[key] as number | undefined) ?? ''}
              onChange={(v) => set(key, typeof v === 'number' ? v : undefined)}
            />
          );
        }
        if (type === 'boolean') {
          return (
            <Switch
              {...common}
              checked={value[key] === undefined ? p.default === true : value[key] === true}
              onChange={(e) => set(key, e.currentTarget.checked)}
            />
          );
        }
        if (type === 'array') {
          return (
            <TagsInput
              {...common}
              value={(value[key] as string[] | undefined) ?? []}
              onChange={(v) => set(key, v)}
              placeholder={placeholder ?? 'type and press Enter'}
            />
          );
        }
        return (
          <TextInput
            {...common}
            value={(value[key] as string | undefined) ?? ''}
            onChange={(e) => set(key, e.currentTarget.value)}
            placeholder={placeholder}
          />
        );
      })}
    </Stack>
  );
}
