import type { HookCatalog } from './hook-catalog.js';
import type { RegisteredHook } from './hook-registry.js';

/**
 * Names that outcomes are recorded under without a hook of the catalog behind them: `args_schema` blocks a call
 * whose args fail the action's parameter schema. No configured hook may take one.
 */
export const RESERVED_HOOK_NAMES: readonly string[] = ['args_schema'];

/**
 * The problems of a config's hooks that take a name that is not theirs: a YAML hook named after a class hook the
 * same config declares, after any hook of the catalog (the confirmation gate, the audit log, every built-in), or
 * after a reserved name. Traces, dry runs and `blocked_by` would otherwise show two hooks under one name.
 */
export function hookNameProblems(hooks: RegisteredHook[], catalog: HookCatalog, at: string): string[] {
  const declared = new Set(hooks.filter((h) => h.source === 'class').map((h) => h.name));
  const problems: string[] = [];
  for (const h of hooks) {
    if (h.source !== 'yaml') continue;
    if (declared.has(h.name)) problems.push(`${at}.yaml: hook name "${h.name}" is already used by a class hook`);
    else if (catalog.get(h.name) || RESERVED_HOOK_NAMES.includes(h.name))
      problems.push(
        `${at}.yaml: hook name "${h.name}" is reserved (a built-in hook of Warden is named so); choose another name`,
      );
  }
  return problems;
}
