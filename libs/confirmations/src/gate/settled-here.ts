import { Injectable } from '@nestjs/common';

import { BoundedMap, OnBus } from '@warden/common';
import { CONFIRMATION_SETTLED, ConfirmationStatus, type ConfirmationRequest } from '../confirmation.types.js';

/** How many settled requests are kept; the oldest is forgotten first (its call then reads the row). */
const KEPT = 500;

/**
 * The requests settled in this process that a parked run may come back for: its call resumes at the gate, which takes
 * the settled row from here instead of reading it (a settled row never changes its decision again). Each is taken
 * once; memory only.
 */
@Injectable()
export class SettledHere {
  private readonly rows = new BoundedMap<string, ConfirmationRequest>(KEPT);

  @OnBus(CONFIRMATION_SETTLED)
  onSettled(row: ConfirmationRequest): void {
    if (row.status !== ConfirmationStatus.Pending) this.rows.set(`${row.runId}:${row.callId}`, row);
  }

  take(runId: string, callId: string): ConfirmationRequest | undefined {
    return this.rows.take(`${runId}:${callId}`);
  }
}
