import { Inject, Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Bus, BusEventName, BusEvents } from '@warden/common';
import { DataSource, type EntityManager } from 'typeorm';

export interface TransactionScope {
  manager: EntityManager;
  /** Queues a domain event; it is emitted only after the transaction commits, never on rollback. */
  publishAfterCommit<K extends BusEventName>(event: K, payload: BusEvents[K]): void;
}

/** One transaction helper: work runs in a transaction, and its domain events fire after the commit. */
@Injectable()
export class TransactionRunner {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(EventEmitter2) private readonly events: Bus,
  ) {}

  async run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    const queued: Array<() => void> = [];
    const result = await this.dataSource.transaction((manager) =>
      work({ manager, publishAfterCommit: (event, payload) => queued.push(() => this.events.emit(event, payload)) }),
    );
    for (const publish of queued) publish();
    return result;
  }
}
