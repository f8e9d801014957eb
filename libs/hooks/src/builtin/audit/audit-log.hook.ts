import { Hook } from '../../hook.decorator.js';
import { PostToolUseHook, type HookContext, type HookResult } from '../../hook.types.js';
import { AuditWriter, type AuditRow } from './audit-writer.js';
import { argsDigest } from './canonical-json.js';

export interface AuditLogConfig {
  /** Store the call's args in the row (otherwise only their SHA-256 digest). */
  store_args?: boolean;
}

export const AUDIT_LOG_HOOK = 'audit_log';

/**
 * Records every connector call in `connector_call_logs`: the ones that ran (execute) and the ones a PreToolUse
 * hook blocked (onBlocked, with `blocked_by`). Auto-attached to every agent of every org: an audit trail an agent's
 * config could switch off would not be one. Rows go through AuditWriter's batches; dry runs write nothing.
 */
@Hook({
  name: AUDIT_LOG_HOOK,
  priority: 1000,
  autoAttach: true,
  keepWhenBypassed: true,
  description:
    'Writes one connector_call_logs row per connector call (executed or blocked): ' +
    'who, what, digest of the args, status, duration.',
  configSchema: {
    type: 'object',
    properties: {
      store_args: {
        type: 'boolean',
        default: false,
        description: 'Also store the call args (default: only their SHA-256 digest)',
      },
    },
    additionalProperties: false,
  },
})
export class AuditLogHook extends PostToolUseHook<AuditLogConfig> {
  constructor(private readonly writer: AuditWriter) {
    super();
  }

  override shouldTrigger(ctx: HookContext): boolean {
    return ctx.metadata.connector !== undefined;
  }

  execute(ctx: HookContext, config: AuditLogConfig): HookResult | Promise<HookResult> {
    if (ctx.metadata.dryRun) return { sideEffects: ['would write a connector call log row'] };
    const execution = ctx.metadata.execution;
    const row = this.row(ctx, config, {
      status: execution?.status ?? null,
      durationMs: execution ? Math.round(execution.durationMs) : null,
      success: execution?.success ?? false,
      error: execution?.error ?? null,
      blockedBy: null,
      simulated: ctx.metadata.simulated === true,
    });
    const backpressure = this.writer.record(row);
    const result: HookResult = { sideEffects: [`connector call logged (${row.connectorName}.${row.action})`] };
    return backpressure ? backpressure.then(() => result) : result;
  }

  async onBlocked(
    ctx: HookContext,
    blocked: { blockedBy: string; error: string },
    config: AuditLogConfig,
  ): Promise<void> {
    if (ctx.metadata.dryRun || !ctx.metadata.connector) return;
    await this.writer.record(
      this.row(ctx, config, {
        status: null,
        durationMs: null,
        success: false,
        error: blocked.error,
        blockedBy: blocked.blockedBy,
        simulated: false,
      }),
    );
  }

  private row(
    ctx: HookContext,
    config: AuditLogConfig,
    outcome: Pick<AuditRow, 'status' | 'durationMs' | 'success' | 'error' | 'blockedBy' | 'simulated'>,
  ): AuditRow {
    // shouldTrigger admits only connector calls; a row without its connector would be no audit record.
    const connector = ctx.metadata.connector;
    if (!connector) throw new Error(`${AUDIT_LOG_HOOK} has no connector to log for tool ${ctx.toolName}`);
    return {
      orgId: ctx.orgId,
      agentId: ctx.agentId || null,
      userId: ctx.userId || null,
      runId: ctx.runId || null,
      callId: ctx.callId ?? null,
      surface: ctx.surface,
      tool: ctx.toolName,
      connectorId: connector.id || null,
      connectorName: connector.name,
      action: connector.action,
      method: connector.method,
      url: connector.url,
      argsDigest: argsDigest(ctx.toolArgs),
      args: config.store_args ? ctx.toolArgs : null,
      ...outcome,
      approvedBy: ctx.metadata.approvedBy ?? null,
      createdAt: new Date(),
    };
  }
}
