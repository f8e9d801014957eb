import { Injectable } from '@nestjs/common';
import { isAdmin, type Principal } from '@warden/auth';
import { ForbiddenError, isUuid, NotFoundError } from '@warden/common';
import { RunEventsService } from '../runs/run-events.service.js';
import type { ConversationResponse, ConversationSummaryResponse } from './dto/conversation.response.js';
import { ConversationsStore } from './conversations.store.js';

/**
 * Conversation history for the Portal. A member sees only their own conversations; an admin may read every
 * conversation of the org (scope=org), but only its owner continues one (POST /api/chat checks that too).
 */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly store: ConversationsStore,
    private readonly events: RunEventsService,
  ) {}

  async list(
    p: Principal,
    q: { agentId?: string; scope?: 'mine' | 'org'; limit?: number },
  ): Promise<ConversationSummaryResponse[]> {
    if (q.scope === 'org' && !isAdmin(p))
      throw new ForbiddenError("only admins of the organisation may list everyone's conversations (scope=org)");
    return this.store.list({
      orgId: p.orgId,
      userId: q.scope === 'org' ? null : p.userId,
      agentId: q.agentId ?? null,
      limit: q.limit ?? 50,
    });
  }

  /** The conversation with each run's stored events, so a client renders it exactly as the live streams did. */
  async get(p: Principal, id: string): Promise<ConversationResponse> {
    const conv = isUuid(id) ? await this.store.find(p.orgId, id) : null;
    if (!conv || (conv.user_id !== p.userId && !isAdmin(p))) throw new NotFoundError('conversation', id);
    const runs = await this.store.runs(conv.id);
    return {
      id: conv.id,
      agent_id: conv.agent_id,
      agent_name: conv.agent_name,
      user_id: conv.user_id,
      created_at: conv.created_at,
      can_continue: conv.user_id === p.userId,
      runs: await Promise.all(
        runs.map(async (r) => ({
          ...r,
          events: (await this.events.list(r.id)).map((e) => ({ id: e.seq, event: e.type, data: e.data })),
        })),
      ),
    };
  }
}
