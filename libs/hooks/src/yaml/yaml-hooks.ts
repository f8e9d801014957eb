import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { RegisteredHook } from '../hook-registry.js';
import { resolveInHooksDir } from './hooks-dir.js';
import { httpHookHostProblem, type HttpHookEnvironment } from './http-hook.js';
import { loadModuleHook, YamlHook, type YamlHookTarget } from './yaml-hook.js';
import { isObject, parseEntry, type YamlHookSpec } from './yaml-hook-entry.js';

export { YAML_HOOK_DEFAULT_PRIORITY, type YamlHookSpec } from './yaml-hook-entry.js';

const YAML_ALIAS_BUDGET = 20;

/**
 * Parses `model_config_json.hooks.yaml`. Syntax errors carry line and column; every entry problem names the entry
 * and its line. Returns the entries that are valid and every problem found (the caller refuses when any).
 */
export function parseYamlHooks(source: string, at = 'hooks.yaml'): { specs: YamlHookSpec[]; problems: string[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) {
    return {
      specs: [],
      problems: doc.errors.map((e) => {
        const pos = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
        const message = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
        return `${at}: line ${pos.line}, column ${pos.col}: ${message}`;
      }),
    };
  }
  const root = doc.contents;
  let value: unknown;
  try {
    // Aliases expand on conversion: a small budget keeps an alias bomb from costing memory and time.
    value = doc.toJS({ maxAliasCount: YAML_ALIAS_BUDGET });
  } catch (err) {
    return {
      specs: [],
      problems: [`${at}: ${(err as Error).message.split('\n')[0]} (at most ${YAML_ALIAS_BUDGET} alias expansions)`],
    };
  }
  if (value === null || value === undefined) return { specs: [], problems: [] };
  if (!isObject(value) || !isMap(root))
    return { specs: [], problems: [`${at}: must be a mapping with a "hooks:" list`] };
  const extra = Object.keys(value).filter((k) => k !== 'hooks');
  const problems = extra.map((k) => `${at}: unknown top-level key "${k}" (expected "hooks")`);
  const list = value.hooks;
  if (list === undefined || list === null) return { specs: [], problems };
  const listNode = root.get('hooks', true) as Node | undefined;
  if (!Array.isArray(list) || !isSeq(listNode))
    return { specs: [], problems: [...problems, `${at}: hooks must be a list`] };

  const specs: YamlHookSpec[] = [];
  const names = new Map<string, number>();
  list.forEach((raw, i) => {
    const node = listNode.items[i] as Node | undefined;
    const line = node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
    const where = `${at}: hooks[${i}]${line ? ` (line ${line})` : ''}`;
    const entryProblems: string[] = [];
    const spec = parseEntry(raw, i, where, entryProblems);
    if (spec && names.has(spec.name))
      entryProblems.push(`${where}: duplicate name "${spec.name}" (also hooks[${names.get(spec.name)}])`);
    if (spec) names.set(spec.name, i);
    problems.push(...entryProblems);
    if (spec && entryProblems.length === 0) specs.push(spec);
  });
  return { specs, problems };
}

/**
 * Looks up each entry's command or module inside HOOKS_DIR and builds the hook objects. A file that is missing,
 * outside HOOKS_DIR, not executable or (module) without a default function is a problem: the run is refused
 * rather than the gate silently skipped.
 */
export async function buildYamlHooks(
  specs: YamlHookSpec[],
  hooksDir: string,
  http: HttpHookEnvironment = { allow: [] },
): Promise<{ hooks: RegisteredHook[]; problems: string[] }> {
  const problems: string[] = [];
  const hooks: RegisteredHook[] = [];
  for (const spec of specs) {
    let target: YamlHookTarget;
    try {
      if (spec.http) {
        const problem = httpHookHostProblem(spec.http, http);
        if (problem) throw new Error(problem);
        target = { kind: 'http', spec: spec.http, env: http };
      } else if (spec.run) {
        target = {
          kind: 'command',
          file: await resolveInHooksDir(hooksDir, spec.run[0], 'command'),
          args: spec.run.slice(1),
        };
      } else if (spec.module) {
        const file = await resolveInHooksDir(hooksDir, spec.module, 'module');
        target = { kind: 'module', fn: await loadModuleHook(file, spec.module) };
      } else {
        // parseYamlHooks admits only specs with exactly one of them.
        throw new Error('names none of run, module or http');
      }
    } catch (err) {
      problems.push(`${spec.at}: ${(err as Error).message}`);
      continue;
    }
    hooks.push({
      name: spec.name,
      point: spec.point,
      priority: spec.priority,
      timeoutMs: spec.timeoutMs,
      onError: spec.onError,
      hook: new YamlHook(spec.point, spec.name, target, spec.matcher, spec.condition, hooksDir, spec.rule),
      config: undefined,
      source: 'yaml',
      autoAttached: false,
    });
  }
  return { hooks, problems };
}
