import { BLOCKING_POINTS, HookPoint, type HookErrorPolicy } from '../hook.types.js';
import { DEFAULT_HOOK_TIMEOUT_MS } from '../hook-registry.js';
import { compileCondition, type Condition } from './cel-condition.js';
import { compileToolMatcher, type ToolMatcher } from './tool-matcher.js';
import { parseHttpHook, type HttpHookSpec } from './http-hook.js';

// One `hooks:` entry of an agent's YAML checked and compiled, apart from the document's parsing (yaml-hooks.ts): the
// keys an entry may have, their defaults, and a problem per bad key naming the entry.

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

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Entry `index` of the list (`where` names it in problems); undefined when it is not a mapping. */
export function parseEntry(raw: unknown, index: number, where: string, problems: string[]): YamlHookSpec | undefined {
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
      `${where}.event: must be one of ${[...EVENTS].join(', ')}` +
        (event === undefined ? '' : ` (got ${JSON.stringify(event)})`),
    );
  }
  const point = event as HookPoint;

  const { matcher, condition } = parseSelector(raw, point, where, problems);
  const target = parseTarget(raw, where, problems);
  const { priority, timeoutMs, onError } = parseLimits(raw, point, where, problems);

  return {
    name: name as string,
    point,
    priority,
    timeoutMs,
    onError,
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

/** Which calls the entry acts on: `matcher` (tool points only) and the CEL `if`. */
function parseSelector(
  raw: Record<string, unknown>,
  point: HookPoint,
  where: string,
  problems: string[],
): Pick<YamlHookSpec, 'matcher' | 'condition'> {
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

  return { matcher, condition };
}

/** Priority, timeout and on_error, with their defaults (on_error: block where the point can block, Stop aside). */
function parseLimits(
  raw: Record<string, unknown>,
  point: HookPoint,
  where: string,
  problems: string[],
): Pick<YamlHookSpec, 'priority' | 'timeoutMs' | 'onError'> {
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
  return { priority: priority as number, timeoutMs: timeoutMs as number, onError: onError as HookErrorPolicy };
}
