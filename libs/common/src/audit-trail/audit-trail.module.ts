import { Global, Module } from '@nestjs/common';
import { AuditAnchor } from './audit-anchor.js';
import { AuditEventsQuery } from './audit-events.query.js';
import { AuditSink } from './audit-sink.js';
import { AuditTrail } from './audit-trail.service.js';
import { AuditVerifier } from './audit-verifier.js';

/** The tamper-evident audit trail, available to every module that records or reads it. */
@Global()
@Module({
  providers: [AuditTrail, AuditVerifier, AuditSink, AuditEventsQuery, AuditAnchor],
  exports: [AuditTrail, AuditVerifier, AuditSink, AuditEventsQuery, AuditAnchor],
})
export class AuditTrailModule {}
