import { NumberInput, Select, Stack, Switch, TagsInput, Text, Textarea, TextInput } from '@mantine/core';
import { useState } from 'react';
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
  minLength?: number;
  maxLength?: number;
  title?: string;
}

type Values = Record<string, unknown>;

/** A form generated from a hook's config schema: one labelled field per property, typed by the schema. */
export function SchemaForm({
  schema,
  value,
  onChange,
  idPrefix,
  problems = {},
  emptyText = 'This hook has no settings.',
}: {
  schema: JsonSchema;
  value: Values;
  onChange: (v: Values) => void;
  idPrefix: string;
  /** Per field: what is wrong with its value, shown at the field. */
  problems?: Record<string, string>;
  emptyText?: string;
}) {
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {emptyText}
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
          label: p.title ?? key,
          description: p.description,
          id: `${idPrefix}-${key}`,
          withAsterisk: schema.required?.includes(key),
          error: problems[key],
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
        if (type === 'object') return <JsonField {...common} value={value[key]} onChange={(v) => set(key, v)} />;
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

/** A nested object (rare in action schemas): edited as JSON text, kept as the value only while it parses. */
function JsonField({
  value,
  onChange,
  error,
  ...rest
}: {
  label: string;
  id: string;
  description?: string;
  withAsterisk?: boolean;
  error?: string;
  value: unknown;
  onChange: (v: unknown) => void;
}) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value, null, 2));
  const [invalid, setInvalid] = useState<string | null>(null);
  return (
    <Textarea
      {...rest}
      ff="monospace"
      autosize
      minRows={2}
      value={text}
      error={invalid ?? error}
      onChange={(e) => {
        setText(e.currentTarget.value);
        try {
          onChange(e.currentTarget.value.trim() === '' ? undefined : JSON.parse(e.currentTarget.value));
          setInvalid(null);
        } catch {
          setInvalid('Not valid JSON yet');
        }
      }}
    />
  );
}
