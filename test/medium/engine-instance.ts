import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test, type TestingModule } from '@nestjs/testing';
import { AgentsModule, RunExecutor } from '@warden/agents';
import { AuthModule } from '@warden/auth';
import { AppConfigModule, AuditTrailModule, TelemetryModule, type EnvironmentInput } from '@warden/common';
import { ConfirmationsModule } from '@warden/confirmations';
import { DatabaseModule } from '@warden/database';
import { HooksModule } from '@warden/hooks';
import { DataSource, type QueryRunner } from 'typeorm';

/**
 * One engine "instance" on a medium test's database: the modules a run goes through (engine, hooks, gate, audit),
 * built with Nest's testing module — no HTTP server, and no recovery loop of its own (a test resumes runs itself).
 */
export interface EngineInstance {
  module: TestingModule;
  executor: RunExecutor;
  dataSource: DataSource;
  /** Database transactions this instance committed or rolled back (a statement outside a transaction is one). */
  transactions(): number;
  /** The statements this instance sent (their text), in order. */
  statements: string[];
  close(): Promise<void>;
}

export async function startEngine(databaseUrl: string, env: EnvironmentInput = {}): Promise<EngineInstance> {
  const module = await Test.createTestingModule({
    imports: [
      AppConfigModule.forRoot({
        NODE_ENV: 'test',
        LOG_LEVEL: 'error',
        DATABASE_URL: databaseUrl,
        DB_SKIP_MIGRATIONS: '1',
        DB_POOL_SIZE: '4',
        SEED_DEMO: 'false',
        APP_ENCRYPTION_KEY: 'medium-encryption-key-0123456789abcdef',
        EGRESS_ALLOW: '127.0.0.1/32',
        RUN_RECOVERY_MS: '3600000',
        ...env,
      }),
      TelemetryModule,
      EventEmitterModule.forRoot(),
      DatabaseModule,
      AuditTrailModule,
      AuthModule,
      HooksModule,
      AgentsModule,
      ConfirmationsModule,
    ],
  }).compile();
  const dataSource = module.get(DataSource);
  const statements: string[] = [];
  const counter = countTransactions(dataSource, statements);
  await module.init();
  return {
    module,
    executor: module.get(RunExecutor),
    dataSource,
    transactions: counter,
    statements,
    close: () => module.close(),
  };
}

/**
 * Counts the transactions a DataSource sends, as PostgreSQL counts them (pg_stat_database.xact_commit + rollback):
 * each COMMIT / ROLLBACK, and each statement sent outside a transaction. Every query goes through a query runner.
 */
function countTransactions(dataSource: DataSource, statements: string[]): () => number {
  let count = 0;
  const create = dataSource.createQueryRunner.bind(dataSource);
  dataSource.createQueryRunner = (...args: Parameters<DataSource['createQueryRunner']>) => {
    const runner: QueryRunner = create(...args);
    const query = runner.query.bind(runner);
    runner.query = ((sql: string, ...rest: unknown[]) => {
      if (/^(COMMIT|ROLLBACK)$/i.test(sql.trim()) || !runner.isTransactionActive) count++;
      statements.push(sql);
      return (query as (...a: unknown[]) => Promise<unknown>)(sql, ...rest);
    }) as QueryRunner['query'];
    return runner;
  };
  return () => count;
}
