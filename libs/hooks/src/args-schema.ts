import { linearRegExpEngine } from '@warden/common';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/**
 * Validates args (the model's final args, an approver's edit, a human task's answer) against a JSON schema — the
 * action's `parameters`, or a task's form. The one Ajv of the application. Compiled validators are cached by the
 * schema's text (a request's schema never changes), and by the schema object itself, so that the calls of a run
 * (which share their tool's schema object) do not serialize it again.
 */
// Schemas come from models (an ask_human form) and admins: their `pattern`s run on RE2, never on the backtracking
// engine, and a pattern RE2 cannot run makes the schema unusable (a 400 naming it) rather than a frozen server.
const ajv = new Ajv({ allErrors: true, strict: false, code: { regExp: linearRegExpEngine } });
const compiled = new Map<string, ValidateFunction>();
const bySchemaObject = new WeakMap<object, ValidateFunction>();
const MAX_CACHED = 500;

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  let validate = bySchemaObject.get(schema);
  if (validate) return validate;
  const key = JSON.stringify(schema);
  validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    const oldest = compiled.keys().next();
    if (compiled.size >= MAX_CACHED && !oldest.done) compiled.delete(oldest.value);
    compiled.set(key, validate);
  }
  bySchemaObject.set(schema, validate);
  return validate;
}

const describe = (e: ErrorObject): string => {
  const where = e.instancePath ? `args${e.instancePath.replace(/\//g, '.')}` : 'args';
  if (e.keyword === 'additionalProperties')
    return `${where} has an unknown field "${String(e.params.additionalProperty)}"`;
  if (e.keyword === 'enum') return `${where} must be one of ${JSON.stringify(e.params.allowedValues)}`;
  return `${where} ${e.message ?? 'is invalid'}`;
};

/** The problems of `value` under `schema`, each a sentence naming the field; empty when it is valid. */
export function schemaProblems(schema: Record<string, unknown>, value: unknown): string[] {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (err) {
    return [`the schema cannot be used: ${(err as Error).message}`];
  }
  if (validate(value)) return [];
  return [...new Set((validate.errors ?? []).map(describe))];
}
