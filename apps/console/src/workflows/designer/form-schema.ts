/** One field of a HUMAN node's answer form, as the form builder edits it. */
export interface FormField {
  name: string;
  label: string;
  type: 'text' | 'number' | 'yesno' | 'choice';
  required: boolean;
  /** choice: the options. */
  options: string[];
}

interface Prop {
  type?: string;
  title?: string;
  enum?: unknown[];
}

/** The fields of a form (JSON Schema object), or [] for none (the default: one line of text). */
export function fieldsOf(form: unknown): FormField[] {
  if (!form || typeof form !== 'object') return [];
  const { properties = {}, required = [] } = form as { properties?: Record<string, Prop>; required?: string[] };
  return Object.entries(properties).map(([name, p]) => ({
    name,
    label: p.title ?? '',
    type: p.enum
      ? 'choice'
      : p.type === 'number' || p.type === 'integer'
        ? 'number'
        : p.type === 'boolean'
          ? 'yesno'
          : 'text',
    required: required.includes(name),
    options: p.enum ? p.enum.map(String) : [],
  }));
}

/** The JSON Schema the fields make (undefined for no fields: the engine's default form). */
export function schemaOf(fields: FormField[]): Record<string, unknown> | undefined {
  if (fields.length === 0) return undefined;
  const properties: Record<string, Prop> = {};
  for (const f of fields) {
    const base: Prop = f.label ? { title: f.label } : {};
    if (f.type === 'choice') properties[f.name] = { ...base, type: 'string', enum: f.options };
    else
      properties[f.name] = {
        ...base,
        type: f.type === 'yesno' ? 'boolean' : f.type === 'number' ? 'number' : 'string',
      };
  }
  const required = fields.filter((f) => f.required).map((f) => f.name);
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** What is wrong with a field as typed (shown at the field). */
export function fieldProblem(f: FormField, all: FormField[]): string | undefined {
  if (!/^[A-Za-z_]\w*$/.test(f.name)) return 'letters, digits and _ only';
  if (all.filter((x) => x.name === f.name).length > 1) return 'two fields have this name';
  return undefined;
}
