import type { HookConfigSchema } from './hook.types.js';

export interface ConfigCheck {
  /** The config with schema defaults applied (only meaningful when `problems` is empty). */
  config: Record<string, unknown>;
  problems: string[];
}

type PropertySchema = NonNullable<HookConfigSchema['properties']>[string];

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function typeProblem(expected: PropertySchema['type'], value: unknown): string | undefined {
  switch (expected) {
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'integer':
      return Number.isInteger(value) ? undefined : 'must be an integer';
    case 'array':
      return Array.isArray(value) ? undefined : 'must be a list';
    case 'object':
      return isPlainObject(value) ? undefined : 'must be an object';
  }
}

/**
 * Checks a hook's config against its schema (the subset hooks use: types, required, enum, minimum/maximum,
 * additionalProperties) and applies defaults. Unknown keys are rejected unless the schema says
 * `additionalProperties: true`, so that a typo such as `max_char` is a 400 rather than a silently ignored setting.
 * `at` prefixes every problem, e.g. `hooks.class_hooks[1].config`.
 */
export function checkHookConfig(schema: HookConfigSchema | undefined, raw: unknown, at: string): ConfigCheck {
  raw ??= {};
  if (!isPlainObject(raw)) return { config: {}, problems: [`${at}: must be an object`] };
  if (!schema) {
    const keys = Object.keys(raw);
    return keys.length === 0
      ? { config: {}, problems: [] }
      : { config: {}, problems: [`${at}: this hook takes no config (got ${keys.map((k) => `"${k}"`).join(', ')})`] };
  }
  const properties = schema.properties ?? {};
  // Partial: a key the schema does not name has no property.
  const propertyOf: Partial<typeof properties> = properties;
  const problems: string[] = [];
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const property = propertyOf[key];
    if (!property) {
      if (schema.additionalProperties === true) config[key] = value;
      else {
        const known = Object.keys(properties);
        problems.push(`${at}.${key}: unknown setting${known.length ? ` (expected one of ${known.join(', ')})` : ''}`);
      }
      continue;
    }
    const problem = typeProblem(property.type, value);
    if (problem) {
      problems.push(`${at}.${key}: ${problem}`);
      continue;
    }
    if (property.enum && !property.enum.some((allowed) => allowed === value)) {
      problems.push(`${at}.${key}: must be one of ${property.enum.map((v) => JSON.stringify(v)).join(', ')}`);
      continue;
    }
    if (typeof value === 'number') {
      if (property.minimum !== undefined && value < property.minimum) {
        problems.push(`${at}.${key}: must be at least ${property.minimum}`);
        continue;
      }
      if (property.maximum !== undefined && value > property.maximum) {
        problems.push(`${at}.${key}: must be at most ${property.maximum}`);
        continue;
      }
    }
    config[key] = value;
  }
  for (const [key, property] of Object.entries(properties)) {
    if (key in config || key in raw) continue;
    if (schema.required?.includes(key)) problems.push(`${at}.${key}: is required`);
    else if (property.default !== undefined) config[key] = structuredClone(property.default);
  }
  return { config, problems };
}
