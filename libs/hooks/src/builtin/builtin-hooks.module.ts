import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditLogHook } from './audit/audit-log.hook.js';
import { AuditWriter } from './audit/audit-writer.js';
import { AuditController } from './audit/audit.controller.js';
import { AuditTrailController } from './audit/audit-trail.controller.js';
import { ConnectorCallChainCheck } from './audit/connector-call-chain-check.js';
import { ConnectorCallQuery } from './audit/connector-call-query.js';
import { ConnectorCallLog } from './audit/connector-call-log.entity.js';
import { ConnectorRateLimitHook } from './rate-limit/connector-rate-limit.hook.js';
import { ConnectorRateLimiters } from './rate-limit/connector-rate-limiters.js';
import { ReadOnlyGuardHook } from './read-only/read-only-guard.hook.js';
import { SessionContextHook } from './session-context/session-context.hook.js';
import { ResultTruncateHook } from './truncate/result-truncate.hook.js';

/**
 * The built-in hooks, found by HookExplorer like any other @Hook provider and declared per agent by name in
 * `model_config_json.hooks.class_hooks`:
 *
 * | hook                 | point        | priority | attached |
 * |----------------------|--------------|----------|----------|
 * | read_only_guard      | PreToolUse   | 5        | auto     |
 * | connector_rate_limit | PreToolUse   | 8        | declared |
 * | session_context      | SessionStart | 50       | declared |
 * | result_truncate      | PostToolUse  | 900      | declared |
 * | audit_log            | PostToolUse  | 1000     | auto     |
 *
 * Auto-attached (every agent, every org, cannot be removed by an agent's config): `read_only_guard`, because the
 * org's read-only switch must hold whatever an agent declares, and `audit_log`, because an audit trail that an
 * agent could leave out would not be one. Declaring an auto-attached hook is how an agent passes it a config
 * (e.g. `{ "name": "audit_log", "config": { "store_args": true } }`). Both run before the confirmation gate (10)
 * where they block: a refused or rate-limited call never posts an approval card.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ConnectorCallLog])],
  controllers: [AuditController, AuditTrailController],
  providers: [
    AuditWriter,
    ConnectorCallQuery,
    ConnectorCallChainCheck,
    ConnectorRateLimiters,
    AuditLogHook,
    ReadOnlyGuardHook,
    ResultTruncateHook,
    ConnectorRateLimitHook,
    SessionContextHook,
  ],
  exports: [AuditWriter, ConnectorRateLimiters],
})
export class BuiltinHooksModule {}
