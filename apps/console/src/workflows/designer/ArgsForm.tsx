import { Stack, Text } from '@mantine/core';
import { TemplateInput } from './TemplateInput';

interface ParamSchema {
  properties?: Record<string, { type?: string; description?: string }>;
  required?: string[];
}

/** A typed value from what was typed: templates stay text (the engine renders them), numbers and yes/no are typed. */
function typed(text: string, type: string | undefined): unknown {
  if (text === '' || text.includes('{{')) return text;
  if ((type === 'number' || type === 'integer') && !Number.isNaN(Number(text))) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** A CONNECTOR node's args: one field per parameter of the action, each a template over inputs and upstream outputs. */
export function ArgsForm({
  schema,
  args,
  onChange,
  suggestions,
}: {
  schema: ParamSchema;
  args: Record<string, unknown>;
  onChange: (args: Record<string, unknown>) => void;
  suggestions: string[];
}) {
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0)
    return (
      <Text size="sm" c="gray.7">
        This action takes no arguments.
      </Text>
    );
  return (
    <Stack gap="xs" role="group" aria-label="Arguments">
      {props.map(([key, p]) => {
        const value = args[key];
        return (
          <TemplateInput
            key={key}
            single
            label={key}
            required={schema.required?.includes(key)}
            description={[p.type, p.description].filter(Boolean).join(' · ')}
            value={value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value)}
            suggestions={suggestions}
            onChange={(text) => {
              const { [key]: _old, ...rest } = args;
              onChange(text === '' ? rest : { ...rest, [key]: typed(text, p.type) });
            }}
          />
        );
      })}
    </Stack>
  );
}
