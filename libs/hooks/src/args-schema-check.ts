import { schemaProblems } from './args-schema.js';
import type { RegisteredHook } from './hook-chain.js';
import { HookPoint, PreToolUseHook, type HookContext, type HookResult } from './hook.types.js';

/** The name a call whose final args do not fit its action's parameter schema is blocked under. */
export const ARGS_SCHEMA_CHECK = 'args_schema';

/**
 * The model's args, as every transform left them, must fit the action's parameter schema (`metadata.argsSchema`)
 * before any policy decides on them: a key the schema does not allow (`additionalProperties: false`), a wrong type,
 * a missing required field blocks the call, naming the problem. Runs (and records an outcome) only when the args do
 * not fit: a valid call sees no trace of it.
 */
class ArgsSchemaCheck extends PreToolUseHook {
  override shouldTrigger(ctx: HookContext): boolean {
    const schema = ctx.metadata.argsSchema;
    return schema !== undefined && schemaProblems(schema, ctx.toolArgs).length > 0;
  }

  execute(ctx: HookContext): HookResult {
    const problems = ctx.metadata.argsSchema ? schemaProblems(ctx.metadata.argsSchema, ctx.toolArgs) : [];
    return { allow: false, error: `the args do not fit ${ctx.toolName}'s parameters: ${problems.join('; ')}` };
  }
}

/**
 * The check as a run's chain holds it: between the agent's transforms and the org's hooks, and between those and the
 * gate (see byRunOrder). The second one triggers only when an org hook made the args unfit.
 */
export function argsSchemaCheck(at: 'before-org' | 'before-gate'): RegisteredHook {
  return {
    name: ARGS_SCHEMA_CHECK,
    point: HookPoint.PreToolUse,
    priority: 0,
    timeoutMs: 0,
    onError: 'block',
    hook: new ArgsSchemaCheck(),
    config: {},
    source: 'class',
    autoAttached: true,
    checksArgs: at,
  };
}
