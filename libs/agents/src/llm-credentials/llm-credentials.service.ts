import { Injectable } from '@nestjs/common';
import { AuditTrail, ConflictError, NotFoundError, SecretBox, type ConfigChangeInput } from '@warden/common';
import { TransactionRunner } from '@warden/database';
import { LlmError } from '../llm/llm-provider.js';
import { LlmCredentialsStore, type DeleteOutcome, type LlmCredentialRow } from './llm-credentials.store.js';

/**
 * Org-scoped model API keys, sealed with APP_ENCRYPTION_KEY (the SecretBox of channel secrets). Write-only: a key is
 * opened only to call the model server, never returned or logged.
 */
@Injectable()
export class LlmCredentialsService {
  constructor(
    private readonly store: LlmCredentialsStore,
    private readonly box: SecretBox,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditTrail,
  ) {}

  /** Storing and deleting a key are audited (in the same transaction) as `secret_changed`, never with the key. */
  async create(orgId: string, userId: string, input: { name: string; apiKey: string }): Promise<LlmCredentialRow> {
    const row = await this.tx.run(async ({ manager }) => {
      const sealed = this.box.seal({ api_key: input.apiKey });
      const inserted = await this.store.insert(orgId, input.name, sealed, userId, manager);
      if (inserted) {
        const change = credentialChange({ orgId, actor: userId, id: inserted.id, before: null, after: { name: inserted.name } });
        await this.audit.configChange(change, manager);
      }
      return inserted;
    });
    if (!row) throw new ConflictError(`an LLM credential named "${input.name}" already exists in this organisation`);
    return row;
  }

  list(orgId: string): Promise<LlmCredentialRow[]> {
    return this.store.list(orgId);
  }

  exists(orgId: string, id: string): Promise<boolean> {
    return this.store.exists(orgId, id);
  }

  async remove(orgId: string, id: string, actor: string | null = null): Promise<void> {
    const outcome = await this.tx.run(async ({ manager }) => {
      const deleted = await this.store.delete(orgId, id, manager);
      if (isDeleted(deleted)) {
        await this.audit.configChange(credentialChange({ orgId, actor, id, before: { name: deleted.name }, after: null }), manager);
      }
      return deleted;
    });
    if (outcome === 'missing') throw new NotFoundError('LLM credential', id);
    if (!isDeleted(outcome))
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

const isDeleted = (outcome: DeleteOutcome): outcome is { name: string } => typeof outcome === 'object' && !Array.isArray(outcome);

/** A credential's audit event: its name before and after, and that its key changed (the whole of it is the key). */
function credentialChange(c: {
  orgId: string;
  actor: string | null;
  id: string;
  before: { name: string } | null;
  after: { name: string } | null;
}): ConfigChangeInput {
  return {
    orgId: c.orgId,
    actor: c.actor,
    entityType: 'llm_credential',
    entityId: c.id,
    change: c.before ? 'deleted' : 'created',
    before: c.before,
    after: c.after,
    secretsChanged: ['api_key'],
  };
}
