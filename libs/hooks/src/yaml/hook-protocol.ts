import { BLOCKING_POINTS, HookPoint, type HookContext, type HookResult, type ToolArgs } from '../hook.types.js';

/**
 * What a YAML hook (command on stdin, or module as its argument) receives — the Claude Code hook input, with
 * Warden's identifiers. Model-controlled values only ever travel inside this JSON.
 */
export interface HookProtocolInput {
  hook_event_name: HookPoint;
  tool_name: string;
  tool_input: ToolArgs;
  tool_response?: string;
  agent_id: string;
  user_id: string;
  org_id: string;
  run_id: string;
  call_id?: string;
  surface: string;
  /** The call is a dry run: report the verdict, change nothing outside. */
  dry_run: boolean;
  /** UserPromptSubmit: the user's prompt (as rewritten by the hooks before). */
  prompt?: string;
  /** Stop: the final answer, and whether a Stop hook already made the model continue. */
  last_assistant_message?: string;
  stop_hook_active?: boolean;
  /** PostToolUseFailure: what the model would read about the failure. */
  error?: string;
  /** PreModelCall: the model about to be called. */
  model?: { provider: string; model: string; turn: number; messages: number };
}

/**
 * What a YAML hook may answer (command stdout JSON, or a module's return value). Snake-case fields, plus Claude
 * Code's `hookSpecificOutput` for hooks written for it.
 */
export interface HookProtocolOutput {
  decision?: 'block' | 'allow' | 'approve' | 'ask';
  reason?: string;
  updated_input?: ToolArgs;
  updated_output?: unknown;
  additional_context?: string;
  system_message?: string;
  side_effects?: string[];
  /** The original system's (FIM One's) HookResult fields, accepted so its hooks run unchanged. */
  allow?: boolean;
  error?: string;
  modified_args?: ToolArgs;
  modified_result?: unknown;
  hookSpecificOutput?: {
    hookEventName?: string;
    permissionDecision?: 'allow' | 'deny' | 'ask';
    permissionDecisionReason?: string;
    updatedInput?: ToolArgs;
    updatedToolOutput?: unknown;
    additionalContext?: string;
  };
}

export function protocolInput(ctx: HookContext): HookProtocolInput {
  const input: HookProtocolInput = {
    hook_event_name: ctx.point,
    tool_name: ctx.toolName,
    tool_input: ctx.toolArgs,
    agent_id: ctx.agentId,
    user_id: ctx.userId,
    org_id: ctx.orgId,
    run_id: ctx.runId,
    call_id: ctx.callId,
    surface: ctx.surface,
    dry_run: ctx.metadata.dryRun === true,
  };
  if (ctx.point === HookPoint.PostToolUse) input.tool_response = ctx.toolResult;
  if (ctx.point === HookPoint.PostToolUseFailure) input.error = ctx.toolResult;
  if (ctx.point === HookPoint.UserPromptSubmit) input.prompt = ctx.toolResult;
  if (ctx.point === HookPoint.Stop) {
    input.last_assistant_message = ctx.toolResult;
    input.stop_hook_active = ctx.metadata.stopHookActive === true;
  }
  if (ctx.point === HookPoint.PreModelCall) input.model = ctx.metadata.model;
  return input;
}

const OUTPUT_POINTS = new Set([HookPoint.PostToolUse, HookPoint.PostToolUseFailure, HookPoint.Stop]);
const CONTEXT_POINTS = new Set([HookPoint.SessionStart, HookPoint.UserPromptSubmit, HookPoint.PostToolUseFailure]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const KNOWN_KEYS = new Set([
  'decision',
  'reason',
  'updated_input',
  'updated_output',
  'additional_context',
  'system_message',
  'side_effects',
  'hookSpecificOutput',
  'updated_prompt',
  'updated_model',
  'allow',
  'error',
  'modified_args',
  'modified_result',
]);

/**
 * Turns a hook's answer into a HookResult. Anything malformed, or a field that makes no sense for the event
 * (rewriting args after the tool ran), throws — the hook then fails by its on_error policy instead of being
 * half-applied.
 */
export function protocolResult(point: HookPoint, output: unknown, hookName: string): HookResult {
  if (output === undefined || output === null) return {};
  if (!isObject(output)) throw new Error('hook output must be a JSON object');
  const unknown = Object.keys(output).filter((k) => !KNOWN_KEYS.has(k));
  if (unknown.length) throw new Error(`hook output has unknown field(s): ${unknown.join(', ')}`);
  const specific = output.hookSpecificOutput;
  if (specific !== undefined && !isObject(specific)) throw new Error('hookSpecificOutput must be an object');
  // Parsed JSON: every field is checked where it is read.
  const s: Record<string, unknown> = isObject(specific) ? specific : {};

  const result: HookResult = {};
  const sideEffects: string[] = [];
  if (output.side_effects !== undefined) {
    if (!Array.isArray(output.side_effects) || output.side_effects.some((e) => typeof e !== 'string')) {
      throw new Error('side_effects must be a list of strings');
    }
    sideEffects.push(...(output.side_effects as string[]));
  }
  if (output.system_message !== undefined) sideEffects.push(stringField(output.system_message, 'system_message'));
  if (sideEffects.length) result.sideEffects = sideEffects;

  const decision = output.decision;
  if (
    decision !== undefined &&
    decision !== 'block' &&
    decision !== 'allow' &&
    decision !== 'approve' &&
    decision !== 'ask'
  ) {
    throw new Error(`decision must be "block", "allow" or "ask", not ${JSON.stringify(decision)}`);
  }
  const permission = s.permissionDecision;
  if (permission !== undefined && permission !== 'allow' && permission !== 'deny' && permission !== 'ask') {
    throw new Error(`permissionDecision must be "allow", "deny" or "ask", not ${JSON.stringify(permission)}`);
  }
  if (output.allow !== undefined && typeof output.allow !== 'boolean') throw new Error('allow must be true or false');
  if (decision === 'block' || permission === 'deny' || output.allow === false) {
    if (!BLOCKING_POINTS.has(point)) throw new Error(`a ${point} hook cannot block`);
    const reason = output.reason ?? s.permissionDecisionReason ?? output.error;
    result.allow = false;
    result.error = reason === undefined ? `Blocked by hook '${hookName}'` : stringField(reason, 'reason');
    return result;
  }

  if (decision === 'ask' || permission === 'ask') {
    if (point !== HookPoint.PreToolUse) throw new Error(`a ${point} hook cannot ask for approval`);
    const reason = output.reason ?? s.permissionDecisionReason;
    result.ask = reason === undefined ? `hook '${hookName}' asks for a human approval` : stringField(reason, 'reason');
  }
  const updatedInput = output.updated_input ?? s.updatedInput ?? output.modified_args;
  if (updatedInput !== undefined) {
    if (point !== HookPoint.PreToolUse) throw new Error('updated_input is only valid for PreToolUse');
    if (!isObject(updatedInput)) throw new Error('updated_input must be an object');
    result.modifiedArgs = updatedInput;
  }
  const updatedOutput = output.updated_output ?? s.updatedToolOutput ?? output.modified_result;
  if (updatedOutput !== undefined) {
    if (!OUTPUT_POINTS.has(point))
      throw new Error('updated_output is only valid for PostToolUse, PostToolUseFailure and Stop');
    result.modifiedResult = typeof updatedOutput === 'string' ? updatedOutput : JSON.stringify(updatedOutput);
  }
  if (output.updated_prompt !== undefined) {
    if (point !== HookPoint.UserPromptSubmit) throw new Error('updated_prompt is only valid for UserPromptSubmit');
    result.modifiedResult = stringField(output.updated_prompt, 'updated_prompt');
  }
  if (output.updated_model !== undefined) {
    if (point !== HookPoint.PreModelCall) throw new Error('updated_model is only valid for PreModelCall');
    result.modifiedModel = stringField(output.updated_model, 'updated_model');
  }
  const context = output.additional_context ?? s.additionalContext;
  if (context !== undefined) {
    if (!CONTEXT_POINTS.has(point))
      throw new Error('additional_context is only valid for SessionStart, UserPromptSubmit and PostToolUseFailure');
    result.additionalContext = stringField(context, 'additional_context');
  }
  return result;
}

function stringField(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new Error(`${name} must be a string`);
  return value;
}
