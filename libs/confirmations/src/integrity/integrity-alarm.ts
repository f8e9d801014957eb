import { Injectable, Logger, Optional } from '@nestjs/common';
import { AuditTrail, ConflictError, Metrics, type AuditEventInput } from '@warden/common';
import { Counter } from 'prom-client';
import { confirmationEvent, requestEvent } from '../confirmation-audit.js';
import { ConfirmationStore } from '../confirmation.store.js';
import { ConfirmationStatus, type ConfirmationRequest } from '../confirmation.types.js';

const REASON = 'integrity check failed: the stored args no longer match the digest of the requested call';

/**
 * A request whose stored args no longer hash to its digest (they were changed outside Warden) is decided by nobody:
 * the decision is refused, the request expires (its waiting call is blocked), and the alarm is raised — a chained
 * `confirmation.integrity_failed` event, an error log and a metric. Neither the args nor their values are logged.
 */
@Injectable()
export class IntegrityAlarm {
  private readonly logger = new Logger(IntegrityAlarm.name);
  private readonly failures?: Counter;

  constructor(
    private readonly store: ConfirmationStore,
    private readonly audit: AuditTrail,
    @Optional() metrics?: Metrics,
  ) {
    if (metrics && !metrics.registry.getSingleMetric('warden_approval_integrity_failures_total')) {
      this.failures = new Counter({
        name: 'warden_approval_integrity_failures_total',
        help: 'Approval requests whose stored args no longer matched their digest when someone decided them',
        registers: [metrics.registry],
      });
    }
  }

  /** Expires the tampered request and raises the alarm; returns the 409 for whoever tried to decide it. */
  async refuse(row: ConfirmationRequest, by: { userId: string; name: string }): Promise<ConflictError> {
    this.failures?.inc();
    this.logger.error(
      `confirmation ${row.id} (run ${row.runId}, ${row.tool}): ${REASON}; the request is expired and the call blocked`,
    );
    const expired = await this.store.settle(row.id, {
      status: ConfirmationStatus.Expired,
      respondedByName: 'system',
      reason: REASON,
    });
    const events: AuditEventInput[] = [alarmEvent(row, by)];
    if (expired) events.push(confirmationEvent(expired, 'expired', { userId: null, name: 'system', reason: REASON }));
    await this.audit.record(events);
    const status = expired?.status ?? ConfirmationStatus.Expired;
    return new ConflictError(
      `confirmation ${row.id} cannot be decided: its stored args no longer match the digest of the requested call`,
      {
        status,
      },
    );
  }
}

function alarmEvent(row: ConfirmationRequest, by: { userId: string; name: string }): AuditEventInput {
  return requestEvent(row, 'confirmation.integrity_failed', by.userId, { noticed_by_name: by.name, reason: REASON });
}
