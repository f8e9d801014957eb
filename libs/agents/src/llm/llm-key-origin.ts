import { originOf, type AppConfig } from '@warden/common';

/**
 * The model server of an `openai` model without a `base_url` (never the SDK's OPENAI_BASE_URL: keys are bound to
 * it).
 */
export const DEFAULT_LLM_BASE_URL = 'https://api.openai.com/v1';

/** The origin the model's requests go to. */
export const modelOrigin = (baseUrl: string | undefined): string | null => originOf(baseUrl ?? DEFAULT_LLM_BASE_URL);

/**
 * Why the operator's key in `keyEnv` may not be sent to `baseUrl` (null when it may): LLM_KEY_ORIGINS names the one
 * origin each key goes to, and a key it does not name goes nowhere. The text follows the variable's label.
 */
export function operatorKeyOriginProblem(
  config: AppConfig,
  keyEnv: string,
  baseUrl: string | undefined,
): string | null {
  const allowed = config.llmKeyOrigin(keyEnv);
  if (!allowed)
    return (
      `"${keyEnv}" has no origin in LLM_KEY_ORIGINS: ` +
      `the operator must name where its key may be sent (${keyEnv}=https://...)`
    );
  const target = modelOrigin(baseUrl);
  if (target === allowed) return null;
  return `"${keyEnv}" may only be sent to ${allowed} (LLM_KEY_ORIGINS), not to ${target ?? 'model.base_url'}`;
}
