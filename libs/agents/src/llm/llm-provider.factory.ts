import { Injectable } from '@nestjs/common';
import { AppConfig, EgressPolicy } from '@warden/common';
import type { ModelSettings } from '../agents/agent-config.js';
import { LlmCredentialsService } from '../llm-credentials/llm-credentials.service.js';
import { operatorKeyOriginProblem } from './llm-key-origin.js';
import { LlmError, type LlmProvider } from './llm-provider.js';
import { OpenAiProvider } from './openai-provider.js';
import { ScriptedProvider } from './scripted-provider.js';

const MAX_PROVIDERS = 500;

@Injectable()
export class LlmProviderFactory {
  constructor(
    private readonly config: AppConfig,
    private readonly egress: EgressPolicy,
    private readonly credentials: LlmCredentialsService,
  ) {}

  /**
   * Providers hold no per-run state: one per org and model settings serves every run (an SDK client is costly to
   * build).
   */
  private readonly providers = new Map<string, LlmProvider>();

  /** `orgId`: the run's org, whose LLM credential (if the model names one) is opened before each model request. */
  create(settings: ModelSettings, orgId: string): LlmProvider {
    if (settings.provider === 'scripted') return new ScriptedProvider(settings.script);
    const key = `${orgId}\n${JSON.stringify(settings)}`;
    const known = this.providers.get(key);
    if (known) return known;
    const provider = this.build(settings, orgId);
    if (this.providers.size >= MAX_PROVIDERS) this.providers.clear();
    this.providers.set(key, provider);
    return provider;
  }

  private build(settings: ModelSettings, orgId: string): LlmProvider {
    let apiKey: string | (() => Promise<string>) = 'not-needed';
    const credentialId = settings.apiKeyCredentialId;
    if (credentialId) apiKey = () => this.credentials.apiKey(orgId, credentialId, settings.baseUrl);
    else if (settings.apiKeyEnv) {
      if (!this.config.llmKeyEnvAllowed(settings.apiKeyEnv)) {
        throw new LlmError(
          `the model's API key variable ${settings.apiKeyEnv} is not allowed: ` +
            `name one matching LLM_KEY_ENV_ALLOW (${this.config.llmKeyEnvAllow.join(', ')})`,
        );
      }
      const originProblem = operatorKeyOriginProblem(this.config, settings.apiKeyEnv, settings.baseUrl);
      if (originProblem) throw new LlmError(`the model's API key variable ${originProblem}`);
      const secret = this.config.llmKeyFromEnv(settings.apiKeyEnv);
      if (!secret) throw new LlmError(`the model's API key variable ${settings.apiKeyEnv} is not set on the server`);
      apiKey = secret;
    }
    return new OpenAiProvider(settings, apiKey, this.config.llmTimeoutMs, this.egress.request);
  }
}
