import { Foundation1764460800000 } from './1764460800000-foundation.js';
import { AgentRuntime1764460801000 } from './1764460801000-agent-runtime.js';
import { Channels1764460802000 } from './1764460802000-channels.js';
import { Confirmations1764460803000 } from './1764460803000-confirmations.js';
import { BuiltinHooks1764460804000 } from './1764460804000-builtin-hooks.js';
import { WorkflowsEvals1764460806000 } from './1764460806000-workflows-evals.js';
import { GateBinding1764900000000 } from './1764900000000-gate-binding.js';
import { Observability1764900001000 } from './1764900001000-observability.js';
import { ApproverPolicies1764910000000 } from './1764910000000-approver-policies.js';
import { RunFencing1764920000001 } from './1764920000001-run-fencing.js';
import { AuditInFlight1764920000002 } from './1764920000002-audit-in-flight.js';
import { LlmCredentials1765000200000 } from './1765000200000-llm-credentials.js';
import { ConversationHistory1765000300000 } from './1765000300000-conversation-history.js';
import { OrgHooks1765000600000 } from './1765000600000-org-hooks.js';
import { McpServers1765000600001 } from './1765000600001-mcp-servers.js';
import { ApprovalEdits1765000500000 } from './1765000500000-approval-edits.js';
import { StandingApprovals1765000500001 } from './1765000500001-standing-approvals.js';
import { ApprovalEscalation1765000500002 } from './1765000500002-approval-escalation.js';
import { ConfirmationBatches1765000500003 } from './1765000500003-confirmation-batches.js';
import { AuditCallIndex1765000100000 } from './1765000100000-audit-call-index.js';
import { AuditChain1765000400000 } from './1765000400000-audit-chain.js';
import { WorkflowCancel1765000800000 } from './1765000800000-workflow-cancel.js';
import { ConfigChangeNotify1766000000000 } from './1766000000000-config-change-notify.js';
import { ParkedRuns1766100000000 } from './1766100000000-parked-runs.js';
import { GrantDigests1766200001000 } from './1766200001000-grant-digests.js';
import { ToolNamespaces1766200002000 } from './1766200002000-tool-namespaces.js';
import { LlmCredentialOrigin1766200005001 } from './1766200005001-llm-credential-origin.js';
import { DurableEvals1766200007001 } from './1766200007001-durable-evals.js';
import { PolicyLifecycle1766300800000 } from './1766300800000-policy-lifecycle.js';
import { PolicyVersions1766200009000 } from './1766200009000-policy-versions.js';
import { WorkflowRunsByWorkflow1766300300000 } from './1766300300000-workflow-runs-by-workflow.js';
import { ScimDirectory1766300700000 } from './1766300700000-scim-directory.js';
import { ConfirmationContext1766300900000 } from './1766300900000-confirmation-context.js';
import { PolicyVersionTestsForced1766301000000 } from './1766301000000-policy-version-tests-forced.js';
import { ConfigNotifyRealChanges1766301400000 } from './1766301400000-config-notify-real-changes.js';

/**
 * Every migration, in order. Listed explicitly (not globbed) so that the app, the TypeORM CLI and the
 * test runner load exactly the same classes. A new migration is a new file plus one line here.
 */
export const MIGRATIONS = [
  Foundation1764460800000,
  AgentRuntime1764460801000,
  Channels1764460802000,
  Confirmations1764460803000,
  BuiltinHooks1764460804000,
  WorkflowsEvals1764460806000,
  GateBinding1764900000000,
  Observability1764900001000,
  ApproverPolicies1764910000000,
  RunFencing1764920000001,
  AuditInFlight1764920000002,
  AuditCallIndex1765000100000,
  LlmCredentials1765000200000,
  ConversationHistory1765000300000,
  AuditChain1765000400000,
  ApprovalEdits1765000500000,
  StandingApprovals1765000500001,
  ApprovalEscalation1765000500002,
  ConfirmationBatches1765000500003,
  OrgHooks1765000600000,
  McpServers1765000600001,
  WorkflowCancel1765000800000,
  ConfigChangeNotify1766000000000,
  ParkedRuns1766100000000,
  GrantDigests1766200001000,
  ToolNamespaces1766200002000,
  LlmCredentialOrigin1766200005001,
  DurableEvals1766200007001,
  PolicyVersions1766200009000,
  WorkflowRunsByWorkflow1766300300000,
  ScimDirectory1766300700000,
  PolicyLifecycle1766300800000,
  ConfirmationContext1766300900000,
  PolicyVersionTestsForced1766301000000,
  ConfigNotifyRealChanges1766301400000,
];
