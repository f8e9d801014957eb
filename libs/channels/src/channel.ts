/**
 * What the approval gate and the notify tool need from a chat platform. The gate knows only this file;
 * a channel knows nothing of agents or confirmations.
 */
export type ChannelType = 'feishu' | 'slack' | 'wecom' | 'inbox';
export type ChatPlatform = 'feishu' | 'slack' | 'wecom';
export type Decision = 'approve' | 'reject';
export type DecidedStatus = 'approved' | 'rejected' | 'expired';

/** A channel row as the implementations see it: config decrypted, secrets included. Never returned by the API. */
export interface ChannelRecord {
  id: string;
  orgId: string;
  type: ChannelType;
  name: string;
  config: Record<string, unknown>;
}

export interface ApprovalCard {
  confirmationId: string;
  agentName: string;
  tool: string;
  args: Record<string, unknown>;
  requestedBy: { userId: string; name?: string | null };
  expiresAt: Date;
  /** Who may approve, as a person reads it ("org_admins, role:finance"). */
  approverScope: string;
  /** Arg names that decide (the CEL condition reads them): shown first and never truncated. */
  decisiveFields?: string[];
  /** Distinct approvals needed (the two-person rule shows "2 distinct approvals needed"), and given so far. */
  approvalsRequired?: number;
  approvalsGiven?: number;
  /** Where the request can be read in full (and approved with changes). */
  link?: string;
  /** A hook asked for this approval (instead of allowing or blocking): its reason. */
  askReason?: string | null;
  /** The card of an escalation (nobody decided in time): says so in its title. */
  escalated?: boolean;
}

/** One card for the gated calls of one model turn, each with its own verdict (issue #20). */
export interface BatchCard {
  batchKey: string;
  agentName: string;
  requestedBy: { userId: string; name?: string | null };
  expiresAt: Date;
  link?: string;
  items: Array<{
    confirmationId: string;
    tool: string;
    args: Record<string, unknown>;
    decisiveFields: string[];
    askReason?: string | null;
    status: 'pending' | DecidedStatus;
    decidedBy?: string | null;
    reason?: string | null;
  }>;
}

/** What a channel remembers of a sent card so it can later replace it with the decided version. */
export interface SentCard {
  platformMessageId?: string;
  /** Platform specifics (Slack channel + ts, WeCom response_code, ...), stored with the confirmation row. */
  extra?: Record<string, unknown>;
}

export interface DecidedCard {
  confirmationId: string;
  tool: string;
  args: Record<string, unknown>;
  status: DecidedStatus;
  /** Who decided, as a person reads it ("alice", "ou_123", "timeout"). */
  decidedBy: string;
  decidedAt: Date;
  reason?: string | null;
}

export interface CallbackRequest {
  method: 'GET' | 'POST';
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, string | undefined>;
}

export interface HttpReply {
  status: number;
  body: unknown;
  contentType?: string;
}

/** What the decision service answered to a click; the channel turns it into the platform's reply (toast, card). */
export interface DecisionOutcome {
  ok: boolean;
  /** e.g. "Approved by alice", "already approved", "you are not allowed to approve this request". */
  message: string;
  decided?: DecidedCard;
  /** Decided, without a card to show in its place (a turn's card is re-rendered separately): a success toast. */
  settled?: boolean;
}

export type ParsedCallback =
  /** Answer directly (url_verification challenge, WeCom echostr, an ignored event type). */
  | { kind: 'reply'; reply: HttpReply }
  /** Verification failed (bad signature, stale timestamp, wrong token, malformed body): nothing may change. */
  | { kind: 'rejected'; reply: HttpReply; reason: string }
  /** A verified button click. `respond` renders the outcome the way the platform expects. */
  | {
      kind: 'decision';
      confirmationId: string;
      decision: Decision;
      /** "Approve all" / "Reject all": the decision applies to every pending call on the same card. */
      all?: boolean;
      actor: { platform: ChatPlatform; externalId: string };
      /** Platform event id, for de-duplication of retried deliveries. */
      eventId?: string;
      respond: (outcome: DecisionOutcome) => HttpReply;
    };

export abstract class Channel {
  abstract readonly type: ChannelType;
  /** Checks a config on create/update; returns problems (empty = fine). */
  abstract validateConfig(config: Record<string, unknown>): string[];
  /** Names of config keys that are secrets: write-only and encrypted at rest. */
  abstract readonly secretKeys: readonly string[];
  abstract sendApprovalCard(channel: ChannelRecord, card: ApprovalCard): Promise<SentCard>;
  abstract markDecided(channel: ChannelRecord, sent: SentCard, decided: DecidedCard): Promise<void>;
  abstract parseCallback(channel: ChannelRecord, req: CallbackRequest): Promise<ParsedCallback>;
  /** `context` says who sent it (the `channel_notify` tool's run); the inbox stores it with the message. */
  abstract sendNotification(channel: ChannelRecord, text: string, context?: NotificationContext): Promise<SentCard>;
  /**
   * Re-renders a still-pending card (e.g. "1 of 2 approvals" after a first approval), buttons kept. Platforms that
   * cannot update a pending card in place keep the original; the inbox and the click answer still show the count.
   */
  updatePendingCard(_channel: ChannelRecord, _sent: SentCard, _card: ApprovalCard): Promise<void> {
    return Promise.resolve();
  }
  /**
   * One card listing several calls (one model turn), per-call buttons plus approve/reject all. Channels without it
   * get one card per call.
   */
  sendBatchCard?(channel: ChannelRecord, card: BatchCard): Promise<SentCard>;
  /** Re-renders a batch card in place (a call joined, or was decided). */
  updateBatchCard?(channel: ChannelRecord, sent: SentCard, card: BatchCard): Promise<void>;
  /**
   * A private plain-text message to one account of this platform (a one-time identity-link code). The inbox has no
   * accounts to write to.
   */
  sendDirectMessage(_channel: ChannelRecord, _externalId: string, _text: string): Promise<void> {
    return Promise.reject(new Error(`a ${this.type} channel cannot send direct messages`));
  }
  /**
   * The channel's own list of who may decide from the chat app
   * (`approver_user_ids` unless a platform names it otherwise).
   */
  approverAllowList(channel: ChannelRecord): string[] | undefined {
    return listOfIds(channel.config.approver_user_ids);
  }
}

export function listOfIds(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.length > 0 ? value.map(String) : undefined;
}

/** Where a notification came from; every field optional (a test message from the API has none). */
export interface NotificationContext {
  agentId?: string | null;
  runId?: string | null;
  userId?: string | null;
}

/**
 * Implemented by the confirmations module and registered at bootstrap, so that channel callbacks can hand
 * verified clicks to the one decision service without channels depending on confirmations.
 */
export interface ApprovalDecisionSink {
  decideFromChannel(input: {
    channel: ChannelRecord;
    confirmationId: string;
    decision: Decision;
    /** Every pending call on the same card ("Approve all" / "Reject all"). */
    all?: boolean;
    /**
     * The verified clicker; the decision service resolves it to a user and reads the channel's approver list itself.
     */
    actor: { platform: ChatPlatform; externalId: string };
  }): Promise<DecisionOutcome>;
}
