import { Injectable } from '@nestjs/common';
import { joinUser } from '@warden/auth';
import { DataSource } from 'typeorm';

export interface ConversationRow {
  id: string;
  agent_id: string;
  agent_name: string | null;
  user_id: string;
  user_sub: string | null;
  created_at: Date;
}
export interface ConversationSummaryRow extends ConversationRow {
  title: string;
  run_count: number;
  last_status: string;
  last_activity_at: Date;
}
export interface ConversationRunRow {
  id: string;
  status: string;
  message: string;
  answer: string | null;
  created_at: Date;
}

const BASE = `SELECT c.id, c.agent_id, a.name AS agent_name, c.user_id, u.sub AS user_sub, c.created_at
  FROM conversations c LEFT JOIN agents a ON a.id = c.agent_id ${joinUser('u', 'c.user_id')}`;

/** The SQL of conversation history: a conversation is the chain of top-level runs sharing its id. */
@Injectable()
export class ConversationsStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Newest activity first; conversations without a run (refused before starting) are left out. */
  list(f: {
    orgId: string;
    userId: string | null;
    agentId: string | null;
    limit: number;
  }): Promise<ConversationSummaryRow[]> {
    return this.dataSource.query(
      `SELECT b.*, first.message AS title, stats.run_count, last.status AS last_status,
              last.created_at AS last_activity_at
         FROM (${BASE} WHERE c.org_id = $1 AND ($2::uuid IS NULL OR c.user_id = $2)
                 AND ($3::uuid IS NULL OR c.agent_id = $3)) b
         JOIN LATERAL (SELECT message FROM agent_runs r
                        WHERE r.conversation_id = b.id AND r.parent_run_id IS NULL
                        ORDER BY r.created_at LIMIT 1) first ON true
         JOIN LATERAL (SELECT status, created_at FROM agent_runs r
                        WHERE r.conversation_id = b.id AND r.parent_run_id IS NULL
                        ORDER BY r.created_at DESC LIMIT 1) last ON true
         JOIN LATERAL (SELECT count(*)::int AS run_count FROM agent_runs r
                        WHERE r.conversation_id = b.id AND r.parent_run_id IS NULL) stats ON true
        ORDER BY last.created_at DESC, b.id LIMIT $4`,
      [f.orgId, f.userId, f.agentId, f.limit],
    );
  }

  async find(orgId: string, id: string): Promise<ConversationRow | null> {
    const [row] = await this.dataSource.query<[ConversationRow?]>(`${BASE} WHERE c.org_id = $1 AND c.id = $2`, [
      orgId,
      id,
    ]);
    return row ?? null;
  }

  runs(conversationId: string): Promise<ConversationRunRow[]> {
    return this.dataSource.query(
      `SELECT id, status, message, answer, created_at FROM agent_runs
        WHERE conversation_id = $1 AND parent_run_id IS NULL ORDER BY created_at, id`,
      [conversationId],
    );
  }
}
