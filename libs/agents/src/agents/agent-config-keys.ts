/**
 * Keys Warden defines in `model_config_json`, per level. An unknown key is refused rather than saved and silently
 * ignored: an admin coming from the original system would otherwise believe a setting is in force when it is not.
 * (`hooks` checks its own keys in the hook resolver; `confirmation.tiers` entries in the approver policy parser.)
 */
const KNOWN: Record<string, readonly string[]> = {
  '': [
    'model',
    'tools',
    'delegates',
    'max_iterations',
    'require_confirmation_for_all',
    'confirmation',
    'hooks',
    'script',
  ],
  model: ['provider', 'base_url', 'model', 'api_key_env', 'api_key_credential_id', 'temperature', 'stream', 'script'],
  confirmation: [
    'channel_id',
    'timeout_s',
    'approver_scope',
    'forbid_self_approval',
    'approvers',
    'tiers',
    'remind_after_s',
    'escalate_after_s',
    'escalate_to',
  ],
};

/** The original system's names (and common slips), with where the setting lives in Warden. */
const HINTS: Record<string, string> = {
  confirmation_mode:
    'Warden has no confirmation_mode: the card goes to confirmation.channel_id, ' +
    'else the org default channel, else the inbox',
  approval_channel_id: 'use confirmation.channel_id',
  confirmation_approver_scope: 'use confirmation.approver_scope',
  confirmation_channel_id: 'use confirmation.channel_id',
  channel_id: 'use confirmation.channel_id',
  approver_scope: 'use confirmation.approver_scope',
  timeout_s: 'use confirmation.timeout_s',
  forbid_self_approval: 'use confirmation.forbid_self_approval',
  class_hooks: 'use hooks.class_hooks',
  yaml: 'use hooks.yaml',
  provider: 'use model.provider',
  base_url: 'use model.base_url',
  api_key_env: 'use model.api_key_env',
  api_key:
    'keys are never stored in the config: store it with POST /api/llm-credentials and name its id in ' +
    'model.api_key_credential_id (or name a server variable matching LLM_KEY_ENV_ALLOW in model.api_key_env)',
  api_key_credential_id: 'use model.api_key_credential_id',
  temperature: 'use model.temperature',
  stream: 'use model.stream',
  max_iter: 'use max_iterations',
  max_steps: 'use max_iterations',
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One problem per unknown key, by JSON path, with a hint where one helps. */
export function unknownConfigKeys(json: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [level, known] of Object.entries(KNOWN)) {
    const obj = level === '' ? json : json[level];
    if (!isObject(obj)) continue;
    for (const key of Object.keys(obj)) {
      if (known.includes(key)) continue;
      const at = `model_config_json.${level ? `${level}.` : ''}${key}`;
      const hint = HINTS[key] ? ` (${HINTS[key]})` : '';
      problems.push(`${at}: unknown key${hint || ` (expected one of ${known.join(', ')})`}`);
    }
  }
  return problems;
}
