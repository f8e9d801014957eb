import { checkHookConfig } from './hook-config.validator.js';
import type { HookCatalog, CatalogEntry } from './hook-catalog.js';
import type { RegisteredHook } from './hook-registry.js';

// Reads an agent's or org's `hooks` config (`class_hooks` + `yaml`) into the catalog hooks it declares and every
// problem, each naming its entry. Pure (no I/O): HookResolver builds the YAML hooks and the chain from the plan.

export interface HooksConfigPlan {
  problems: string[];
  classHooks: RegisteredHook[];
  yaml?: string;
}

type Declared = Map<string, { index: number; config: unknown }>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function planHooksConfig(catalog: HookCatalog, hooksConfig: unknown, at: string): HooksConfigPlan {
  const plan: HooksConfigPlan = { problems: [], classHooks: [] };
  const declared: Declared = new Map();
  if (hooksConfig !== undefined && hooksConfig !== null) {
    if (!isObject(hooksConfig)) {
      plan.problems.push(`${at}: must be an object with "class_hooks" and/or "yaml"`);
      hooksConfig = {};
    }
    const config = hooksConfig as Record<string, unknown>;
    for (const key of Object.keys(config)) {
      if (key !== 'class_hooks' && key !== 'yaml')
        plan.problems.push(`${at}.${key}: unknown key (expected class_hooks, yaml)`);
    }
    readClassHooks(catalog, config.class_hooks, declared, plan.problems, at);
    if (config.yaml !== undefined && config.yaml !== null) {
      if (typeof config.yaml !== 'string') plan.problems.push(`${at}.yaml: must be a YAML string`);
      else plan.yaml = config.yaml;
    }
  }
  for (const [name, { index, config }] of declared) {
    const entry = catalog.get(name);
    // readClassHooks declares only hooks of the catalog.
    if (!entry) throw new Error(`hook "${name}" left the catalog`);
    const checked = checkHookConfig(entry.configSchema, config, `${at}.class_hooks[${index}].config`);
    if (checked.problems.length) plan.problems.push(...checked.problems);
    else plan.classHooks.push(registered(entry, checked.config));
  }
  return plan;
}

function readClassHooks(catalog: HookCatalog, raw: unknown, declared: Declared, problems: string[], at0: string): void {
  if (raw === undefined || raw === null) return;
  if (!Array.isArray(raw)) {
    problems.push(`${at0}.class_hooks: must be a list of hook names or { "name", "config" } objects`);
    return;
  }
  raw.forEach((item: unknown, index) => {
    const at = `${at0}.class_hooks[${index}]`;
    let name: unknown;
    let config: unknown;
    if (typeof item === 'string') {
      name = item;
    } else if (isObject(item)) {
      const extra = Object.keys(item).filter((k) => k !== 'name' && k !== 'config');
      if (extra.length)
        problems.push(`${at}: unknown key(s) ${extra.map((k) => `"${k}"`).join(', ')} (expected name, config)`);
      name = item.name;
      config = item.config;
      if (typeof name !== 'string') {
        problems.push(`${at}.name: must be a hook name`);
        return;
      }
    } else {
      problems.push(`${at}: must be a hook name or { "name", "config" }, not ${item === null ? 'null' : typeof item}`);
      return;
    }
    const hookName = name as string;
    if (!catalog.get(hookName)) {
      problems.push(`${at}: unknown hook "${hookName}"${suggest(catalog, hookName)}`);
      return;
    }
    const earlier = declared.get(hookName);
    if (earlier) {
      problems.push(`${at}: duplicate hook "${hookName}" (also ${at0}.class_hooks[${earlier.index}])`);
      return;
    }
    declared.set(hookName, { index, config });
  });
}

function suggest(catalog: HookCatalog, name: string): string {
  const known = catalog.list().map((e) => e.name);
  const close = known.filter((k) => editDistance(k, name) <= 2);
  return close.length
    ? ` (did you mean ${close.map((k) => `"${k}"`).join(' or ')}?)`
    : known.length
      ? ` (known hooks: ${known.join(', ')})`
      : ' (no hooks are installed)';
}

/** A catalog hook as a chain entry, with its checked config. */
export function registered(entry: CatalogEntry, config: Record<string, unknown>): RegisteredHook {
  return {
    name: entry.name,
    point: entry.point,
    priority: entry.priority,
    timeoutMs: entry.timeoutMs,
    onError: entry.onError,
    hook: entry.instance,
    config,
    source: 'class',
    autoAttached: entry.autoAttach,
    runsLast: entry.runsLast ?? false,
  };
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}
