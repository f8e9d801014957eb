import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { DataSource, type EntityManager } from 'typeorm';

export interface TransactionScope {
  manager: EntityManager;
  /** Queues a domain event; it is emitted only after the transaction commits, never on rollback. */
  publishAfterCommit(event: string, payload: unknown): void;
}

/** One transaction helper: work runs in a transaction, and its domain events fire after the commit. */
@Injectable()
export class TransactionRunner {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventEmitter2,
  ) {}

  async run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    const queued: Array<[string, unknown]> = [];
    const result = await this.dataSource.transaction((manager) =>
      work({ manager, publishAfterCommit: (event, payload) => queued.push([event, payload]) }),
    );
    for (const [event, payload] of queued) this.events.emit(event, payload);
    return result;
  }
}
