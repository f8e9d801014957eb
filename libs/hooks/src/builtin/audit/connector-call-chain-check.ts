import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AuditVerifier } from '@warden/common';
import { DataSource } from 'typeorm';
import { connectorCallLogCheck } from './connector-call-event.js';

/** Makes GET /api/audit/verify also compare each connector_call_logs row with the event that audited it. */
@Injectable()
export class ConnectorCallChainCheck implements OnModuleInit {
  constructor(
    private readonly verifier: AuditVerifier,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.verifier.addSourceCheck('connector_call', connectorCallLogCheck(this.dataSource));
  }
}
