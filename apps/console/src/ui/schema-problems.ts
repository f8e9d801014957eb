import type { JsonSchema } from './SchemaForm';

type Values = Record<string, unknown>;

const typeOf = (s: JsonSchema) => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type);

function valueProblem(p: JsonSchema, v: unknown): string | null {
  const type = typeOf(p);
  if (p.enum && !p.enum.some((e) => e === v)) return `one of ${p.enum.map(String).join(', ')}`;
  if (type === 'integer' || type === 'number') {
    if (typeof v !== 'number' || Number.isNaN(v)) return 'a number';
    if (type === 'integer' && !Number.isInteger(v)) return 'a whole number';
    if (p.minimum !== undefined && v < p.minimum) return `at least ${p.minimum}`;
    if (p.maximum !== undefined && v > p.maximum) return `at most ${p.maximum}`;
  }
  if (type === 'string') {
    if (typeof v !== 'string') return 'text';
    if (p.minLength !== undefined && v.length < p.minLength) return `at least ${p.minLength} characters`;
    if (p.maxLength !== undefined && v.length > p.maxLength) return `at most ${p.maxLength} characters`;
  }
  if (type === 'object' && (typeof v !== 'object' || v === null || Array.isArray(v))) return 'an object (JSON)';
  return null;
}

/**
 * What a person must fix before the form can be sent, by field, checked as they type. The server validates again
 * (its own schema engine, patterns included); this only spares a round trip for the common mistakes.
 */
export function schemaProblems(schema: JsonSchema, value: Values): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const [key, p] of Object.entries(schema.properties ?? {})) {
    const v = value[key];
    if (v === undefined) {
      if (schema.required?.includes(key)) problems[key] = 'Required';
      continue;
    }
    const wanted = valueProblem(p, v);
    if (wanted) problems[key] = `Must be ${wanted}`;
  }
  return problems;
}
