import { Logger } from '@nestjs/common';
import { SnakeNamingStrategy } from '@warden/database';
import { DataSource, type DataSourceOptions, type QueryRunner } from 'typeorm';
import { createTestDatabase } from '../support/test-database.js';

/**
 * A "medium" test's database: a migrated clone with a plain DataSource (no app, no HTTP), a query counter, and
 * helpers to make the rows engine services need.
 */
export interface MediumDb {
  url: string;
  dataSource: DataSource;
  /** Statements sent through `dataSource.query` (a transaction's included) since the last `resetCount()`, by their first words. */
  statements: string[];
  resetCount(): void;
  orgId: string;
  /** A run row, leased to `lockedBy` at `epoch` (status running). */
  newRun(opts?: { lockedBy?: string; epoch?: number; status?: string }): Promise<string>;
  close(): Promise<void>;
}

export const quietLogger = new Logger('medium');
quietLogger.warn = () => undefined;

/** `entities`: for services that read through repositories (e.g. RunStore.get). */
export async function mediumDb(opts: { entities?: DataSourceOptions['entities'] } = {}): Promise<MediumDb> {
  const db = await createTestDatabase();
  const dataSource = new DataSource({
    type: 'postgres',
    url: db.url,
    extra: { max: 4 },
    entities: opts.entities ?? [],
    namingStrategy: new SnakeNamingStrategy(),
  });
  await dataSource.initialize();
  const statements: string[] = [];
  const query = dataSource.query.bind(dataSource);
  // A transaction's manager queries through here too, naming its runner: passed on, or its statements would run
  // outside the transaction.
  dataSource.query = ((sql: string, params?: unknown[], runner?: QueryRunner) => {
    statements.push(sql.trim().replace(/\s+/g, ' ').slice(0, 60));
    return query(sql, params, runner);
  }) as DataSource['query'];
  const [{ id: orgId }] = await query(`INSERT INTO orgs (external_id, name) VALUES ('medium', 'medium') RETURNING id`);
  return {
    url: db.url,
    dataSource,
    statements,
    resetCount: () => void statements.splice(0),
    orgId,
    async newRun(opts = {}) {
      const [{ id }] = await query(
        `INSERT INTO agent_runs (org_id, agent_id, user_id, surface, mode, status, hooks, message, locked_by, lease_until, lease_epoch)
         VALUES ($1, gen_random_uuid(), gen_random_uuid(), 'api', 'react', $2, 'active', 'm', $3, now() + interval '1 minute', $4) RETURNING id`,
        [orgId, opts.status ?? 'running', opts.lockedBy ?? 'me', opts.epoch ?? 1],
      );
      return id;
    },
    async close() {
      await dataSource.destroy();
      await db.drop();
    },
  };
}
