import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BaseHook, BLOCKING_POINTS, HookPoint, type HookContext, type HookResult } from '../hook.types.js';
import type { Condition } from './cel-condition.js';
import { runCommand } from './command-runner.js';
import { callHttpHook, type HttpHookEnvironment, type HttpHookSpec } from './http-hook.js';
import { protocolInput, protocolResult, type HookProtocolInput } from './hook-protocol.js';
import type { ToolMatcher } from './tool-matcher.js';

export const MAX_STDOUT_BYTES = 1024 * 1024;
const TOOL_POINTS = new Set<HookPoint>([HookPoint.PreToolUse, HookPoint.PostToolUse, HookPoint.PostToolUseFailure]);
const MAX_STDERR_BYTES = 64 * 1024;
const MAX_REASON_CHARS = 2000;
/** What a command or HTTP hook reports when an evaluation without side effects (shadow, replay) did not run it. */
export const EXTERNAL_HOOK_NOT_RUN = 'not run: command and HTTP hooks run only when the evaluation allows them';

/** A module hook's default export. */
export type ModuleHookFunction = (input: HookProtocolInput, options: { signal: AbortSignal }) => unknown;

export type YamlHookTarget =
  | { kind: 'command'; file: string; args: string[] }
  | { kind: 'module'; fn: ModuleHookFunction }
  | { kind: 'http'; spec: HttpHookSpec; env: HttpHookEnvironment };

/**
 * A hook declared in an agent's YAML: a command (Claude Code protocol: JSON on stdin, exit 2 blocks with stderr,
 * stdout JSON) or a JS module. Not a Nest provider — the resolver builds one per run and puts it in the same
 * registry and ordering as the class hooks; failures throw and the registry applies the entry's on_error.
 */
export class YamlHook extends BaseHook<unknown> {
  constructor(
    readonly point: HookPoint,
    readonly name: string,
    private readonly target: YamlHookTarget,
    private readonly matcher: ToolMatcher,
    private readonly condition: Condition | undefined,
    private readonly hooksDir: string,
    /** The matcher and condition as written, for the dry run (undefined: every call of its point). */
    readonly rule?: string,
  ) {
    super();
  }

  /**
   * Matcher and condition filter. A condition that cannot be evaluated counts as met, so that execute evaluates it
   * again, throws, and the hook fails by its on_error policy (a guard is never skipped because of a bad input).
   */
  override shouldTrigger(ctx: HookContext): boolean {
    if (TOOL_POINTS.has(this.point) && !this.matcher(ctx.toolName)) return false;
    if (!this.condition) return true;
    try {
      return this.condition(conditionInput(ctx));
    } catch {
      return true;
    }
  }

  async execute(ctx: HookContext): Promise<HookResult> {
    if (this.condition && !this.condition(conditionInput(ctx))) return {};
    if (this.target.kind !== 'module' && ctx.metadata.externalHooks === 'skip')
      return { sideEffects: [EXTERNAL_HOOK_NOT_RUN] };
    const input = protocolInput(ctx);
    const signal = ctx.signal;
    if (this.target.kind === 'module') {
      return protocolResult(this.point, await this.target.fn(input, { signal }), this.name);
    }
    if (this.target.kind === 'http') {
      return protocolResult(
        this.point,
        await callHttpHook(this.target.spec, this.target.env, input, signal),
        this.name,
      );
    }
    const exit = await runCommand({
      file: this.target.file,
      args: this.target.args,
      cwd: this.hooksDir,
      env: commandEnvironment(this.hooksDir, this.point),
      stdin: JSON.stringify(input),
      signal,
      maxStdoutBytes: MAX_STDOUT_BYTES,
      maxStderrBytes: MAX_STDERR_BYTES,
    });
    const stderr = exit.stderr.trim().slice(0, MAX_REASON_CHARS);
    if (exit.code === 2) {
      if (!BLOCKING_POINTS.has(this.point))
        throw new Error(`exit 2 (block) is not possible for ${this.point}${stderr ? `: ${stderr}` : ''}`);
      return { allow: false, error: stderr || `Blocked by hook '${this.name}'` };
    }
    if (exit.code !== 0) {
      const how = exit.code === null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      throw new Error(`command ${how}${stderr ? `: ${stderr}` : ''}`);
    }
    const stdout = exit.stdout.trim();
    if (stdout === '') return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(stdout);
    } catch {
      throw new Error(`stdout is not JSON: ${JSON.stringify(stdout.slice(0, 80))}`);
    }
    return protocolResult(this.point, parsed, this.name);
  }
}

function conditionInput(ctx: HookContext) {
  const agent = ctx.metadata.agent;
  return {
    args: ctx.toolArgs,
    tool: ctx.toolName,
    agent: {
      id: ctx.agentId,
      name: agent?.name ?? '',
      require_confirmation_for_all: agent?.requireConfirmationForAll ?? false,
    },
    user: { id: ctx.userId, org_id: ctx.orgId },
  };
}

/** An allow-list, not the server's environment: hook commands never see database URLs, API keys or tokens. */
function commandEnvironment(hooksDir: string, point: HookPoint): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: hooksDir,
    LANG: 'C.UTF-8',
    WARDEN_HOOK_EVENT: point,
  };
}

/** Loads a module hook from its resolved path; its default export must be a function. */
export async function loadModuleHook(file: string, declared: string): Promise<ModuleHookFunction> {
  let loaded: { default?: unknown };
  try {
    loaded = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (err) {
    throw new Error(`module "${declared}" failed to load: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof loaded.default !== 'function') throw new Error(`module "${declared}" must export a default function`);
  return loaded.default as ModuleHookFunction;
}
