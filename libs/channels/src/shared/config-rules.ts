/** How one config key of a channel type is checked on create/update. */
export interface ConfigKeyRule {
  key: string;
  kind: 'string' | 'url' | 'string_list' | 'integer';
  required: boolean;
  /** Write-only: encrypted at rest, never returned. */
  secret?: boolean;
  /** Extra shape check for strings, with the words that explain it. */
  pattern?: { test: RegExp; says: string };
}

/** Problems with `config` against `rules`, one sentence each naming the key; empty = fine. */
export function checkConfig(rules: readonly ConfigKeyRule[], config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const known = new Set(rules.map((r) => r.key));
  for (const key of Object.keys(config)) {
    if (!known.has(key)) problems.push(`config.${key} is not a known key (expected one of ${[...known].join(', ')})`);
  }
  for (const rule of rules) {
    const value = config[rule.key];
    if (value === undefined || value === null || value === '') {
      if (rule.required) problems.push(`config.${rule.key} is required`);
      continue;
    }
    const problem = checkValue(rule, value);
    if (problem) problems.push(`config.${rule.key} ${problem}`);
  }
  return problems;
}

function checkValue(rule: ConfigKeyRule, value: unknown): string | null {
  switch (rule.kind) {
    case 'string':
      if (typeof value !== 'string' || value.trim() === '') return 'must be a non-empty string';
      if (rule.pattern && !rule.pattern.test.test(value)) return `must be ${rule.pattern.says}`;
      return null;
    case 'url':
      if (typeof value !== 'string') return 'must be an http(s) URL';
      try {
        const u = new URL(value);
        return u.protocol === 'http:' || u.protocol === 'https:' ? null : 'must be an http(s) URL';
      } catch {
        return 'must be an http(s) URL';
      }
    case 'string_list':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && v.trim() !== '')
        ? null
        : 'must be a list of non-empty strings';
    case 'integer':
      return (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^\d+$/.test(value))
        ? null
        : 'must be an integer';
  }
}

export const secretKeysOf = (rules: readonly ConfigKeyRule[]): string[] => rules.filter((r) => r.secret).map((r) => r.key);
