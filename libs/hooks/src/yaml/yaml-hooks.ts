import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { BLOCKING_POINTS, HookPoint, type HookErrorPolicy } from '../hook.types.js';
import { DEFAULT_HOOK_TIMEOUT_MS, type RegisteredHook } from '../hook-registry.js';
import { compileCondition, type Condition } from './cel-condition.js';
import { resolveInHooksDir } from './hooks-dir.js';
import { compileToolMatcher, type ToolMatcher } from './tool-matcher.js';
import { httpHookHostProblem, parseHttpHook, type HttpHookEnvironment, type HttpHookSpec } from './http-hook.js';
import { loadModuleHook, YamlHook, type YamlHookTarget } from './yaml-hook.js';

/** One `hooks:` entry of an agent's YAML, checked and compiled (but with its files not yet looked up). */
export interface YamlHookSpec {
  name: string;
  point: HookPoint;
  priority: number;
  timeoutMs: number;
  onError: HookErrorPolicy;
  matcher: ToolMatcher;
  condition?: Condition;
  run?: string[];
  module?: string;
  /** `type: http` (or a `url`): POSTed to a policy server. */
  http?: HttpHookSpec;
  /** e.g. `hooks.yaml: hooks[0] (line 3)`, prefix of every problem about this entry. */
  at: string;
  /** What selects the calls it acts on, as written (`matcher "oa__*", if args.amount > 10`): the dry run names it. */
  rule?: string;
}

export const YAML_HOOK_DEFAULT_PRIORITY = 50;
const MAX_TIMEOUT_MS = 600_000;
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const KEYS = [
  'name',
  'event',
  'matcher',
  'if',
  'type',
  'run',
  'module',
  'url',
  'headers',
  'format',
  'priority',
  'timeout_ms',
  'on_error',
];
const TYPES = ['command', 'module', 'http'];
const EVENTS = new Set<string>(Object.values(HookPoint));
const TOOL_POINTS = new Set<string>([HookPoint.PreToolUse, HookPoint.PostToolUse, HookPoint.PostToolUseFailure]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses `model_config_json.hooks.yaml`. Syntax errors carry line and column; every entry problem names the entry
 * and its line. Returns the entries that are valid and every problem found (the caller refuses when any).
 */
const YAML_ALIAS_BUDGET = 20;

export function parseYamlHooks(source: string, at = 'hooks.yaml'): { specs: YamlHookSpec[]; problems: string[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) {
    return {
      specs: [],
      problems: doc.errors.map((e) => {
        const pos = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
        return `${at}: line ${pos.line}, column ${pos.col}: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`;
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

function parseEntry(raw: unknown, index: number, where: string, problems: string[]): YamlHookSpec | undefined {
  if (!isObject(raw)) {
    problems.push(`${where}: must be a mapping (name, event, matcher, if, run | module, ...)`);
    return undefined;
  }
  for (const key of Object.keys(raw)) {
    if (!KEYS.includes(key)) problems.push(`${where}: unknown key "${key}" (expected one of ${KEYS.join(', ')})`);
  }
  const name = raw.name ?? `yaml-hook-${index + 1}`;
  if (typeof name !== 'string' || !NAME.test(name))
    problems.push(`${where}.name: must be 1-64 letters, digits, "_", "-" or "."`);

  const event = raw.event;
  if (typeof event !== 'string' || !EVENTS.has(event)) {
    problems.push(
      `${where}.event: must be one of ${[...EVENTS].join(', ')}${event === undefined ? '' : ` (got ${JSON.stringify(event)})`}`,
    );
  }
  const point = event as HookPoint;

  let matcher: ToolMatcher = () => true;
  if (raw.matcher !== undefined) {
    if (typeof raw.matcher !== 'string') problems.push(`${where}.matcher: must be a string`);
    else if (!TOOL_POINTS.has(point)) problems.push(`${where}.matcher: ${point} hooks have no tool to match`);
    else {
      try {
        matcher = compileToolMatcher(raw.matcher);
      } catch (err) {
        problems.push(`${where}.matcher: ${(err as Error).message}`);
      }
    }
  }

  let condition: Condition | undefined;
  if (raw.if !== undefined) {
    if (typeof raw.if !== 'string' || raw.if.trim() === '')
      problems.push(`${where}.if: must be a CEL expression string`);
    else {
      try {
        condition = compileCondition(raw.if);
      } catch (err) {
        problems.push(`${where}.if: ${(err as Error).message}`);
      }
    }
  }

  const target = parseTarget(raw, where, problems);

  const priority = raw.priority ?? YAML_HOOK_DEFAULT_PRIORITY;
  if (typeof priority !== 'number' || !Number.isFinite(priority)) problems.push(`${where}.priority: must be a number`);
  const timeoutMs = raw.timeout_ms ?? DEFAULT_HOOK_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || (timeoutMs as number) < 1 || (timeoutMs as number) > MAX_TIMEOUT_MS) {
    problems.push(`${where}.timeout_ms: must be an integer between 1 and ${MAX_TIMEOUT_MS}`);
  }
  const onError = raw.on_error ?? (BLOCKING_POINTS.has(point) && point !== HookPoint.Stop ? 'block' : 'allow');
  if (onError !== 'block' && onError !== 'allow') problems.push(`${where}.on_error: must be "block" or "allow"`);
  else if (onError === 'block' && !BLOCKING_POINTS.has(point) && EVENTS.has(point)) {
    problems.push(
      `${where}.on_error: "block" only applies to ${[...BLOCKING_POINTS].join(', ')} (${point} hooks cannot block)`,
    );
  }

  return {
    name: name as string,
    point,
    priority: priority as number,
    timeoutMs: timeoutMs as number,
    onError: onError as HookErrorPolicy,
    matcher,
    condition,
    ...target,
    at: where,
    rule: ruleText(raw),
  };
}

/** The entry's matcher and condition as written, or undefined when it acts on every call of its point. */
function ruleText(raw: Record<string, unknown>): string | undefined {
  const parts = [
    typeof raw.matcher === 'string' && raw.matcher !== '' ? `matcher ${JSON.stringify(raw.matcher)}` : '',
    typeof raw.if === 'string' ? `if ${raw.if.trim()}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : undefined;
}

/** What the entry runs: exactly one of `run` (command), `module` or `url` (http), agreeing with `type` when given. */
function parseTarget(
  raw: Record<string, unknown>,
  where: string,
  problems: string[],
): Pick<YamlHookSpec, 'run' | 'module' | 'http'> {
  if (raw.type !== undefined && !TYPES.includes(raw.type as string))
    problems.push(`${where}.type: must be one of ${TYPES.join(', ')}`);
  const given = (['run', 'module', 'url'] as const).filter((k) => raw[k] !== undefined);
  if (given.length === 0) problems.push(`${where}: needs "run" (a command), "module" or "url" (an http hook)`);
  if (given.length > 1) problems.push(`${where}: has ${given.map((k) => `"${k}"`).join(' and ')}; choose one`);
  const expected = { command: 'run', module: 'module', http: 'url' }[raw.type as string];
  if (expected && given.length === 1 && given[0] !== expected)
    problems.push(`${where}: type ${String(raw.type)} needs "${expected}"`);
  if (raw.url === undefined && (raw.headers !== undefined || raw.format !== undefined))
    problems.push(`${where}: "headers" and "format" are for http hooks (with "url")`);
  const target: Pick<YamlHookSpec, 'run' | 'module' | 'http'> = {};
  if (raw.run !== undefined) {
    const parts = typeof raw.run === 'string' ? [raw.run] : raw.run;
    if (
      !Array.isArray(parts) ||
      parts.length === 0 ||
      parts.some((p) => typeof p !== 'string') ||
      (parts[0] as string).trim() === ''
    ) {
      problems.push(`${where}.run: must be a command path or a list [command, ...args] of strings`);
    } else target.run = parts as string[];
  }
  if (raw.module !== undefined) {
    if (typeof raw.module !== 'string' || raw.module.trim() === '') problems.push(`${where}.module: must be a path`);
    else target.module = raw.module;
  }
  if (raw.url !== undefined) target.http = parseHttpHook(raw, where, problems);
  return target;
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
