/**
 * What a hook knows about the call it sees: the tool call's metadata and the agent settings it carries (part of the
 * hook contract, re-exported by hook.types.ts; depends on nothing).
 */

export type ToolArgs = Record<string, unknown>;

/** What a hook may know about the tool being called; filled by the runtime per call. */
export interface ToolCallMetadata {
  /** The connector action (or built-in tool) says this call, with the model's args, needs a human approval. */
  requiresConfirmation?: boolean;
  /**
   * Whether the call needs a human approval with these args (the action's `requires_confirmation`, or its CEL
   * condition evaluated on them). The gate asks it with the args it receives, i.e. after every rewrite.
   */
  confirmationRequiredFor?: (args: ToolArgs) => boolean;
  /** The tool changes something (connector action `write`, or a built-in tool that declares it). */
  write?: boolean;
  conversationId?: string;
  /** The member's message the run started from (shown to approvers as the call's context). */
  memberMessage?: string;
  /** The CEL condition that made this call need approval (its `args.*` fields are shown first on the card). */
  confirmationWhen?: string | null;
  /** Present for connector tools. */
  connector?: { id: string; name: string; action: string; method: string; url: string };
  /** The run's agent settings that hooks read (confirmation policy etc.), resolved once per run. */
  agent?: AgentHookSettings;
  /** Set by POST /api/hooks/dry-run: report what you would do; send nothing, write nothing, wait for nothing. */
  dryRun?: boolean;
  /**
   * Set by evaluations that must have no side effect (a shadow policy, a replay, policy tests): command and HTTP
   * hooks are not run (they report EXTERNAL_HOOK_NOT_RUN) unless the evaluation explicitly allows them.
   */
  externalHooks?: 'skip';
  /** PostToolUse only: how the tool execution went (HTTP status for connectors). */
  execution?: { status?: number; durationMs: number; success: boolean; error?: string };
  /** Parent run / call when this run is a delegated sub-agent. */
  parentRunId?: string;
  /** PreModelCall: the model about to be called, the turn, and how many messages it gets. */
  model?: { provider: string; model: string; turn: number; messages: number };
  /** Stop: the model was already made to continue by a Stop hook in this run (Claude Code's stop_hook_active). */
  stopHookActive?: boolean;
  /**
   * PreToolUse hooks that asked for a human approval of this call (`HookResult.ask`), in order; the gate reads them.
   */
  confirmationAsks?: Array<{ hook: string; reason: string }>;
  /** The call asks a person a question (ask_human, a workflow HUMAN node): the approval carries the answer. */
  humanTask?: boolean;
  /** The call ids of the model turn this call belongs to, in order (one approval card per turn). */
  turnCallIds?: string[];
  /**
   * The run may park on an approval (a top-level chat or api run): the gate returns `park` once the request is
   * announced, instead of waiting in memory. DAG steps, delegates, workflow nodes and evals wait in process.
   */
  canPark?: boolean;
  /**
   * The run was parked at the gate for this call and now resumes there: the hooks before the gate ran before it
   * parked (their rewrites are in the args), so only the gate runs, and it runs whatever its trigger says.
   */
  resumedAtGate?: boolean;
  /**
   * This driver recorded the call in the model turn it runs now (a new call id, not parked, not resumed): no approval
   * request can exist for it yet, so the gate records one without first looking for an earlier one.
   */
  newInTurn?: boolean;
  /**
   * The hooks before the gate run again for a parked call because its run's hook chain changed while it waited: they
   * decide on the call again. What a hook counts (a rate limit) was counted on the first pass and is not again.
   */
  decidingAgain?: boolean;
  /** Set by the confirmation gate when it lets the call through: who approved it, under which approval (audited). */
  approvedBy?: string;
  /**
   * Set by the confirmation gate in a dry run: what the authorization kernel requires of this call (the tier its args
   * fall in, how many distinct approvals, from whom), for the dry-run report.
   */
  dryRunRequirement?: { tier: number | null; when: string | null; approvals: number; approvers: string[] };
  /** The tool's parameter schema (JSON schema): what an approver's edited args are validated against. */
  argsSchema?: Record<string, unknown>;
  [key: string]: unknown;
}

export type ApproverScope = 'initiator' | 'agent_owner' | 'org_members' | 'org_admins';

export interface AgentHookSettings {
  id: string;
  name: string;
  /** The agent's org: its org-wide hooks (PUT /api/org/hooks) join the agent's own. */
  orgId?: string;
  ownerUserId: string | null;
  requireConfirmationForAll: boolean;
  confirmation: {
    channelId?: string;
    timeoutS: number;
    approverScope: ApproverScope;
    forbidSelfApproval: boolean;
    /** Who may decide (README "Who may approve"); absent = the seed-compatible default derived from the scope. */
    approvers?: string[];
    /** The first tier whose CEL holds on the args sets how many distinct approvals are needed, and from whom. */
    tiers?: ApprovalTier[];
    /** Reminder and escalation (issue #20): seconds after the card, and to whom. */
    remindAfterS?: number;
    escalateAfterS?: number;
    escalateTo?: { approvers?: string[]; channelId?: string };
  };
}

export interface ApprovalTier {
  /** CEL over `args`, e.g. `args.amount > 500000`. */
  when: string;
  /** Distinct approvers needed. */
  approvals: number;
  /** Who may approve in this tier; defaults to the policy's `approvers`. */
  approvers?: string[];
}
