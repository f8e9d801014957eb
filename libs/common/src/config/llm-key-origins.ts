import { originOf } from '../http/origin.js';

/** Where the operator's keys may go when LLM_KEY_ORIGINS is unset: the default-allowed OpenAI key, to OpenAI only. */
export const DEFAULT_LLM_KEY_ORIGINS = 'WARDEN_LLM_KEY_OPENAI=https://api.openai.com';

export const LLM_KEY_ORIGINS_FORMAT =
  'LLM_KEY_ORIGINS must list NAME=https://origin pairs separated by commas, each name once, ' +
  'e.g. LLM_API_KEY=https://api.openai.com,OTHER_KEY=https://llm.corp';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `NAME=https://origin,...` as a map from key variable to the one origin (scheme, host, port) its key may be sent
 * to; null when the text is malformed (a pair without `=`, a bad name, a non-http(s) URL, a name given twice).
 */
export function parseLlmKeyOrigins(raw: string): Map<string, string> | null {
  const origins = new Map<string, string>();
  for (const pair of raw.split(',')) {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    const origin = originOf(pair.slice(at + 1).trim());
    if (at < 0 || !NAME.test(name) || origin === null || origins.has(name)) return null;
    origins.set(name, origin);
  }
  return origins;
}
