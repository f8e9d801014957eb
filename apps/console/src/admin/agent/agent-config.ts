/**
 * `model_config_json` as the agent editor holds it: a plain object, edited by the fields and the Advanced tab alike.
 */
export type ConfigJson = Record<string, unknown>;

export const NEW_CONFIG: ConfigJson = {
  model: { provider: 'openai', base_url: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
  tools: [],
  max_iterations: 10,
};

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object at `key` of a config (an empty one when absent or not an object). */
export const section = (config: ConfigJson, key: string): Record<string, unknown> =>
  isObject(config[key]) ? config[key] : {};

/** A copy of `obj` with `key` set, or removed when `value` is undefined, '' or an empty list (absent = the default). */
export function withKey<T extends Record<string, unknown>>(obj: T, key: string, value: unknown): T {
  const empty = value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
  // In place (the Advanced tab's JSON keeps its order), removed when empty, else added at the end.
  const next = Object.fromEntries(
    Object.entries(obj).flatMap(([k, v]) => (k !== key ? [[k, v]] : empty ? [] : [[k, value]])),
  );
  return (empty || key in next ? next : { ...next, [key]: value }) as T;
}

/** A copy of the config with `section.key` set (the section is dropped once empty). */
export function withSectionKey(config: ConfigJson, name: string, key: string, value: unknown): ConfigJson {
  const next = withKey(section(config, name), key, value);
  return withKey(config, name, Object.keys(next).length ? next : undefined);
}

export const stringList = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
export const numberOr = (v: unknown): number | '' => (typeof v === 'number' ? v : '');

/**
 * The server's problems (POST /api/agents/validate, or a refused save) that belong to a field: each problem starts
 * with its path (`model_config_json.confirmation.tiers[0].when ...`, `hooks.yaml: ...`, `unknown tool "x": ...`).
 */
export function problemsAt(problems: string[], ...patterns: RegExp[]): string[] {
  return problems.filter((p) => patterns.some((re) => re.test(p)));
}

/** Every path pattern a field of the editor shows; a problem matching none is shown above the tabs. */
export const FIELD_PATTERNS: RegExp[] = [
  /^model_config_json\.model\b/,
  /^model_config_json\.(tools|delegates|max_iterations|require_confirmation_for_all)\b/,
  /^unknown (tool|delegate)\b/,
  /^delegate(s)? /,
  /^model_config_json\.confirmation\b/,
  /^hooks\./,
];

export const unclaimed = (problems: string[]) => problems.filter((p) => !FIELD_PATTERNS.some((re) => re.test(p)));

/** Shows a field's problems as its Mantine `error` (undefined when none). */
export const asError = (problems: string[]) => (problems.length ? problems.join('\n') : undefined);
