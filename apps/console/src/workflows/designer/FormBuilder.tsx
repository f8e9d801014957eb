import { ActionIcon, Button, Checkbox, Group, Paper, Select, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { fieldProblem, fieldsOf, schemaOf, type FormField } from './form-schema';

const TYPES = [
  { value: 'text', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'yesno', label: 'Yes / no' },
  { value: 'choice', label: 'Choice' },
];

/** The answer form of a HUMAN node, field by field (name, label, type, required); it writes the JSON Schema. */
export function FormBuilder({
  form,
  onChange,
}: {
  form: unknown;
  onChange: (schema: Record<string, unknown> | undefined) => void;
}) {
  const fields = fieldsOf(form);
  const write = (next: FormField[]) => onChange(schemaOf(next));
  const set = (i: number, patch: Partial<FormField>) => write(fields.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  const add = () => {
    let n = fields.length + 1;
    while (fields.some((f) => f.name === `field_${n}`)) n++;
    write([...fields, { name: `field_${n}`, label: '', type: 'text', required: true, options: [] }]);
  };
  return (
    <Stack gap="xs" role="group" aria-label="Answer form">
      <Text size="sm" fw={600}>
        Answer form
      </Text>
      {fields.length === 0 && (
        <Text size="sm" c="gray.7">
          No fields: the person answers with one line of text.
        </Text>
      )}
      {fields.map((f, i) => (
        <Paper key={i} withBorder p="xs">
          <Stack gap={4}>
            <Group grow gap="xs" align="flex-start">
              <TextInput
                label={`Field ${i + 1} name`}
                value={f.name}
                error={fieldProblem(f, fields)}
                onChange={(e) => set(i, { name: e.currentTarget.value })}
              />
              <TextInput
                label={`Field ${i + 1} label`}
                value={f.label}
                onChange={(e) => set(i, { label: e.currentTarget.value })}
              />
            </Group>
            <Group gap="xs" align="flex-end">
              <Select
                label={`Field ${i + 1} type`}
                data={TYPES}
                value={f.type}
                allowDeselect={false}
                onChange={(v) => set(i, { type: (v ?? 'text') as FormField['type'] })}
                w={130}
              />
              <Checkbox
                label="Required"
                aria-label={`Field ${i + 1} required`}
                checked={f.required}
                onChange={(e) => set(i, { required: e.currentTarget.checked })}
                mb={8}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Remove field ${f.name}`}
                onClick={() => write(fields.filter((_, j) => j !== i))}
                mb={4}
              >
                ✕
              </ActionIcon>
            </Group>
            {f.type === 'choice' && (
              <TagsInput
                label={`Field ${i + 1} options`}
                description="Type an option and press Enter"
                value={f.options}
                onChange={(options) => set(i, { options })}
              />
            )}
          </Stack>
        </Paper>
      ))}
      <Button variant="default" size="xs" onClick={add}>
        Add form field
      </Button>
    </Stack>
  );
}
