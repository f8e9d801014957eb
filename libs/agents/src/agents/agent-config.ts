import { parseApproverPolicy, parseEscalationPolicy, type AgentHookSettings, type ApproverScope } from '@warden/hooks';

export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
}
/** One turn of a scripted model: tool calls, or a final answer. */
export type ScriptTurn =
  { tool_calls: ScriptedToolCall[]; content?: string } | { content: string; tool_calls?: undefined };

export interface ModelSettings {
  provider: 'openai' | 'scripted';
  baseUrl?: string;
  model: string;
  apiKeyEnv?: string;
  /** An org LLM credential's id (POST /api/llm-credentials). */
  apiKeyCredentialId?: string;
  temperature?: number;
  /** Stream completions (default true). */
  stream: boolean;
  script: ScriptTurn[];
}

/** `model_config_json`, typed and with defaults. */
export interface AgentConfig {
  model: ModelSettings;
  tools: string[];
  delegates: string[];
  maxIterations: number;
  requireConfirmationForAll: boolean;
  confirmation: AgentHookSettings['confirmation'];
  /** Passed as-is to the hook resolver. */
  hooks: unknown;
}

const APPROVER_SCOPES: ApproverScope[] = ['initiator', 'agent_owner', 'org_members', 'org_admins'];
export const DEFAULT_MAX_ITERATIONS = 10;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads `model_config_json`; every shape problem is reported (by JSON path) rather than thrown. */
export function parseAgentConfig(json: Record<string, unknown>): { config: AgentConfig; problems: string[] } {
  const problems: string[] = [];
  const model = isObject(json.model) ? json.model : {};
  if (!isObject(json.model)) problems.push('model_config_json.model must be an object with a provider');
  const provider = model.provider;
  if (provider !== 'openai' && provider !== 'scripted')
    problems.push(`model_config_json.model.provider must be "openai" or "scripted"`);
  const rawScript = model.script ?? json.script;
  const script: ScriptTurn[] = [];
  if (provider === 'openai') {
    if (typeof model.model !== 'string' || model.model === '')
      problems.push('model_config_json.model.model must name the model');
    if (model.base_url !== undefined && (typeof model.base_url !== 'string' || !URL.canParse(model.base_url)))
      problems.push('model_config_json.model.base_url must be an absolute URL');
    if (model.api_key_env !== undefined && typeof model.api_key_env !== 'string')
      problems.push('model_config_json.model.api_key_env must be a string');
    if (model.api_key_credential_id !== undefined && typeof model.api_key_credential_id !== 'string')
      problems.push('model_config_json.model.api_key_credential_id must be a string');
    if (model.api_key_env !== undefined && model.api_key_credential_id !== undefined)
      problems.push('model_config_json.model: name either model.api_key_env or model.api_key_credential_id, not both');
    if (model.temperature !== undefined && typeof model.temperature !== 'number')
      problems.push('model_config_json.model.temperature must be a number');
  }
  if (provider === 'scripted') {
    if (!Array.isArray(rawScript) || rawScript.length === 0)
      problems.push('a scripted model needs a non-empty "script" list of turns');
    else
      rawScript.forEach((turn, i) => {
        const at = `script[${i}]`;
        if (!isObject(turn)) {
          problems.push(`${at} must be an object`);
          return;
        }
        if (Array.isArray(turn.tool_calls) && turn.tool_calls.length > 0) {
          const calls: ScriptedToolCall[] = [];
          turn.tool_calls.forEach((c, j) => {
            if (!isObject(c) || typeof c.name !== 'string') problems.push(`${at}.tool_calls[${j}] needs a "name"`);
            else if (c.args !== undefined && !isObject(c.args))
              problems.push(`${at}.tool_calls[${j}].args must be an object`);
            else calls.push({ name: c.name, args: isObject(c.args) ? c.args : {} });
          });
          script.push({ tool_calls: calls, content: typeof turn.content === 'string' ? turn.content : undefined });
        } else if (typeof turn.content === 'string') {
          script.push({ content: turn.content });
        } else problems.push(`${at} needs "tool_calls" or "content"`);
      });
  }
  const stringList = (key: string): string[] => {
    const v = json[key];
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
      problems.push(`model_config_json.${key} must be a list of strings`);
      return [];
    }
    return v as string[];
  };
  const maxIterations = json.max_iterations ?? DEFAULT_MAX_ITERATIONS;
  if (
    typeof maxIterations !== 'number' ||
    !Number.isInteger(maxIterations) ||
    maxIterations < 1 ||
    maxIterations > 100
  ) {
    problems.push('model_config_json.max_iterations must be an integer between 1 and 100');
  }
  if (json.require_confirmation_for_all !== undefined && typeof json.require_confirmation_for_all !== 'boolean') {
    problems.push('model_config_json.require_confirmation_for_all must be true or false');
  }
  const c = isObject(json.confirmation) ? json.confirmation : {};
  if (json.confirmation !== undefined && !isObject(json.confirmation))
    problems.push('model_config_json.confirmation must be an object');
  if (c.approver_scope !== undefined && !APPROVER_SCOPES.includes(c.approver_scope as ApproverScope)) {
    problems.push(`model_config_json.confirmation.approver_scope must be one of ${APPROVER_SCOPES.join(', ')}`);
  }
  if (c.timeout_s !== undefined && (typeof c.timeout_s !== 'number' || c.timeout_s <= 0))
    problems.push('model_config_json.confirmation.timeout_s must be a positive number');
  if (c.forbid_self_approval !== undefined && typeof c.forbid_self_approval !== 'boolean')
    problems.push('model_config_json.confirmation.forbid_self_approval must be true or false');
  if (
    c.forbid_self_approval === true &&
    c.approvers === undefined &&
    (c.approver_scope ?? 'initiator') === 'initiator'
  ) {
    // The initiator is the only approver in that scope, and may not approve their own request: nobody could.
    problems.push(
      'model_config_json.confirmation.forbid_self_approval cannot be combined with approver_scope "initiator": ' +
        'nobody could approve',
    );
  }
  const approverScope = APPROVER_SCOPES.includes(c.approver_scope as ApproverScope)
    ? (c.approver_scope as ApproverScope)
    : 'initiator';
  const { policy, problems: policyProblems } = parseApproverPolicy(c, {
    at: 'model_config_json.confirmation',
    legacyScope: approverScope,
    forbidSelfApproval: c.forbid_self_approval === true,
  });
  problems.push(...policyProblems);
  const { escalation, problems: escalationProblems } = parseEscalationPolicy(c, 'model_config_json.confirmation');
  problems.push(...escalationProblems);
  if (c.channel_id !== undefined && typeof c.channel_id !== 'string')
    problems.push('model_config_json.confirmation.channel_id must be a string');
  return {
    problems,
    config: {
      model: {
        provider: provider === 'scripted' ? 'scripted' : 'openai',
        baseUrl: typeof model.base_url === 'string' ? model.base_url : undefined,
        model: typeof model.model === 'string' ? model.model : 'scripted',
        apiKeyEnv: typeof model.api_key_env === 'string' ? model.api_key_env : undefined,
        apiKeyCredentialId: typeof model.api_key_credential_id === 'string' ? model.api_key_credential_id : undefined,
        temperature: typeof model.temperature === 'number' ? model.temperature : undefined,
        stream: model.stream !== false,
        script,
      },
      tools: stringList('tools'),
      delegates: stringList('delegates'),
      maxIterations: typeof maxIterations === 'number' ? maxIterations : DEFAULT_MAX_ITERATIONS,
      requireConfirmationForAll: json.require_confirmation_for_all === true,
      confirmation: {
        channelId: typeof c.channel_id === 'string' ? c.channel_id : undefined,
        timeoutS: typeof c.timeout_s === 'number' ? c.timeout_s : 120,
        approverScope,
        forbidSelfApproval: c.forbid_self_approval === true,
        ...policy,
        ...escalation,
      },
      hooks: json.hooks,
    },
  };
}

export function hookSettingsOf(
  agent: { id: string; name: string; ownerUserId: string | null; orgId?: string },
  config: AgentConfig,
): AgentHookSettings {
  return {
    id: agent.id,
    name: agent.name,
    ownerUserId: agent.ownerUserId,
    ...(agent.orgId ? { orgId: agent.orgId } : {}),
    requireConfirmationForAll: config.requireConfirmationForAll,
    confirmation: config.confirmation,
  };
}

const OVERRIDABLE: Array<[keyof AgentHookSettings['confirmation'], string]> = [
  ['channelId', 'channel_id'],
  ['timeoutS', 'timeout_s'],
  ['approverScope', 'approver_scope'],
  ['forbidSelfApproval', 'forbid_self_approval'],
  ['approvers', 'approvers'],
  ['tiers', 'tiers'],
  ['remindAfterS', 'remind_after_s'],
  ['escalateAfterS', 'escalate_after_s'],
  ['escalateTo', 'escalate_to'],
];

/**
 * A workflow AGENT node's `confirmation` laid over the agent's own: the keys the node gives win, the rest stay the
 * agent's. The node was validated when the workflow was saved.
 */
export function withConfirmationOverride(
  settings: AgentHookSettings,
  raw: Record<string, unknown> | undefined,
): AgentHookSettings {
  if (!raw) return settings;
  const parsed = parseAgentConfig({ model: { provider: 'scripted', script: [{ content: '' }] }, confirmation: raw })
    .config.confirmation;
  const picked = Object.fromEntries(
    OVERRIDABLE.filter(([, key]) => raw[key] !== undefined).map(([field]) => [field, parsed[field]]),
  );
  return { ...settings, confirmation: { ...settings.confirmation, ...picked } };
}
