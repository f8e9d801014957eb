import { Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError, SecretBox } from '@warden/common';
import { LlmError } from '../llm/llm-provider.js';
import { LlmCredentialsStore, type LlmCredentialRow } from './llm-credentials.store.js';

/**
 * Org-scoped model API keys, sealed with APP_ENCRYPTION_KEY (the SecretBox of channel secrets). Write-only: a key is
 * opened only to call the model server, never returned or logged.
 */
@Injectable()
export class LlmCredentialsService {
  constructor(
    private readonly store: LlmCredentialsStore,
    private readonly box: SecretBox,
  ) {}

  async create(orgId: string, userId: string, input: { name: string; apiKey: string }): Promise<LlmCredentialRow> {
    const row = await this.store.insert(orgId, input.name, this.box.seal({ api_key: input.apiKey }), userId);
    if (!row) throw new ConflictError(`an LLM credential named "${input.name}" already exists in this organisation`);
    return row;
  }

  list(orgId: string): Promise<LlmCredentialRow[]> {
    return this.store.list(orgId);
  }

  exists(orgId: string, id: string): Promise<boolean> {
    return this.store.exists(orgId, id);
  }

  async remove(orgId: string, id: string): Promise<void> {
    const outcome = await this.store.delete(orgId, id);
    if (outcome === 'missing') throw new NotFoundError('LLM credential', id);
    if (outcome !== 'deleted')
      throw new ConflictError(`LLM credential ${id} is used by agent(s) ${outcome.join(', ')}: point them at another key first`);
  }

  /** The key, for the model call only. */
  async apiKey(orgId: string, id: string): Promise<string> {
    const sealed = await this.store.sealedSecret(orgId, id);
    if (!sealed)
      throw new LlmError(
        `the agent's LLM credential ${id} no longer exists: store a key with POST /api/llm-credentials and name it in model.api_key_credential_id`,
      );
    return String(this.box.open(sealed).api_key);
  }
}
