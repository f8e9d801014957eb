import { Injectable } from '@nestjs/common';
import {
  AuditTrail,
  BadInputError,
  ConflictError,
  NotFoundError,
  originOf,
  SecretBox,
  secretsFollowProblem,
  type ConfigChangeInput,
} from '@warden/common';
import { TransactionRunner } from '@warden/database';
import { modelOrigin } from '../llm/llm-key-origin.js';
import { LlmError } from '../llm/llm-provider.js';
import { LlmCredentialsStore, type DeleteOutcome, type LlmCredentialRow } from './llm-credentials.store.js';

/** A credential as an admin writes it: the key may be left out of an update that keeps its origin. */
export interface CredentialInput {
  name: string;
  origin: string;
  apiKey?: string;
}

/**
 * Org-scoped model API keys, sealed with APP_ENCRYPTION_KEY (the SecretBox of channel secrets). Write-only: a key is
 * opened only to call the model server of its origin, never returned or logged.
 */
@Injectable()
export class LlmCredentialsService {
  constructor(
    private readonly store: LlmCredentialsStore,
    private readonly box: SecretBox,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditTrail,
  ) {}

  /**
   * Storing, changing and deleting a key are audited (in the same transaction) as `secret_changed`, never with the
   * key.
   */
  async create(orgId: string, userId: string, input: CredentialInput & { apiKey: string }): Promise<LlmCredentialRow> {
    const origin = checkedOrigin(input.origin);
    const row = await this.tx.run(async ({ manager }) => {
      const write = { name: input.name, origin, sealed: this.box.seal({ api_key: input.apiKey }) };
      const inserted = await this.store.insert(orgId, write, userId, manager);
      if (inserted)
        await this.audit.configChange(
          credentialChange({ orgId, actor: userId, before: null, after: inserted }),
          manager,
        );
      return inserted;
    });
    if (!row) throw new ConflictError(`an LLM credential named "${input.name}" already exists in this organisation`);
    return row;
  }

  /** Renames or re-binds a credential; the key belongs to its origin, so another origin needs it entered again. */
  async update(orgId: string, id: string, actor: string | null, input: CredentialInput): Promise<LlmCredentialRow> {
    const origin = checkedOrigin(input.origin);
    const outcome = await this.tx.run(async ({ manager }) => {
      const before = await this.store.find(orgId, id, manager);
      if (!before) return null;
      const kept = input.apiKey === undefined ? ['api_key'] : [];
      const rebind = secretsFollowProblem({ field: 'origin', before: before.origin ?? '', after: origin, kept });
      if (rebind) throw new BadInputError(`invalid LLM credential: ${rebind}`, [rebind]);
      const sealed = input.apiKey === undefined ? undefined : this.box.seal({ api_key: input.apiKey });
      const after = await this.store.update(orgId, id, { name: input.name, origin, sealed }, manager);
      if (after && after !== 'taken') {
        const change = credentialChange({ orgId, actor, before, after, keyChanged: sealed !== undefined });
        await this.audit.configChange(change, manager);
      }
      return after;
    });
    if (!outcome) throw new NotFoundError('LLM credential', id);
    if (outcome === 'taken')
      throw new ConflictError(`an LLM credential named "${input.name}" already exists in this organisation`);
    return outcome;
  }

  list(orgId: string): Promise<LlmCredentialRow[]> {
    return this.store.list(orgId);
  }

  /**
   * Why an agent with model server `baseUrl` may not name credential `id` (null when it may), as the text that
   * follows the credential's id.
   */
  async useProblem(orgId: string, id: string, baseUrl: string | undefined): Promise<string | null> {
    const row = await this.store.find(orgId, id);
    if (!row) return 'is not an LLM credential of this organisation (GET /api/llm-credentials)';
    return originProblem(id, row.origin, baseUrl);
  }

  async remove(orgId: string, id: string, actor: string | null = null): Promise<void> {
    const outcome = await this.tx.run(async ({ manager }) => {
      const deleted = await this.store.delete(orgId, id, manager);
      if (isDeleted(deleted))
        await this.audit.configChange(credentialChange({ orgId, actor, before: deleted, after: null }), manager);
      return deleted;
    });
    if (outcome === 'missing') throw new NotFoundError('LLM credential', id);
    if (!isDeleted(outcome))
      throw new ConflictError(
        `LLM credential ${id} is used by agent(s) ${outcome.join(', ')}: point them at another key first`,
      );
  }

  /** The key, for a model call to `baseUrl` only: refused (nothing sent) unless that is the key's origin. */
  async apiKey(orgId: string, id: string, baseUrl: string | undefined): Promise<string> {
    const stored = await this.store.sealedSecret(orgId, id);
    if (!stored)
      throw new LlmError(
        `the agent's LLM credential ${id} no longer exists: ` +
          'store a key with POST /api/llm-credentials and name it in model.api_key_credential_id',
      );
    const problem = originProblem(id, stored.origin, baseUrl);
    if (problem) throw new LlmError(`the agent's LLM credential ${id} ${problem}`);
    return String(this.box.open(stored.sealed).api_key);
  }
}

/** The origin a credential is stored for; a 400 naming the field unless it is an absolute http(s) URL. */
function checkedOrigin(raw: string): string {
  const origin = originOf(raw);
  if (origin) return origin;
  const problem =
    `origin "${raw}" must be an absolute http(s) URL, ` +
    'e.g. https://api.openai.com (the model server the key is for)';
  throw new BadInputError(`invalid LLM credential: ${problem}`, [problem]);
}

function originProblem(id: string, origin: string | null, baseUrl: string | undefined): string | null {
  if (!origin) return `has no origin yet: give it one with PUT /api/llm-credentials/${id} (origin and api_key)`;
  const target = modelOrigin(baseUrl);
  return target === origin ? null : `may only be sent to ${origin} (its origin), not to ${target ?? 'model.base_url'}`;
}

const isDeleted = (outcome: DeleteOutcome): outcome is CredentialAudited =>
  typeof outcome === 'object' && !Array.isArray(outcome);

type CredentialAudited = Pick<LlmCredentialRow, 'id' | 'name' | 'origin'>;

/** A credential's audit event: its name and origin before and after, and whether its key changed (never the key). */
function credentialChange(c: {
  orgId: string;
  actor: string | null;
  before: CredentialAudited | null;
  after: CredentialAudited | null;
  keyChanged?: boolean;
}): ConfigChangeInput {
  const audited = (r: CredentialAudited | null) => r && { name: r.name, origin: r.origin };
  // A change names a side that exists: the credential written or removed.
  const subject = c.after ?? c.before;
  if (!subject) throw new Error('an LLM credential change needs the credential before or after it');
  return {
    orgId: c.orgId,
    actor: c.actor,
    entityType: 'llm_credential',
    entityId: subject.id,
    change: !c.before ? 'created' : !c.after ? 'deleted' : 'updated',
    before: audited(c.before),
    after: audited(c.after),
    secretsChanged: (c.keyChanged ?? true) ? ['api_key'] : [],
  };
}
