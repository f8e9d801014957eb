import { Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig, bootProgress } from '@warden/common';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { buildDataSourceOptions, type DatabaseTarget } from './data-source.js';
import { DATABASE_TARGET, DatabaseTargetModule } from './database-target.module.js';
import { ConfigCache } from './config-cache.js';
import { TransactionRunner } from './transaction-runner.js';
import { runMigrationsOnce } from './migrate-once.js';

/**
 * The app's one DataSource. Migrations run at start unless DB_SKIP_MIGRATIONS=1 (production: the one-shot
 * `dist/apps/api/src/migrate.js` runs them once per release); nothing ever synchronizes.
 */
@Global()
@Module({
  imports: [
    DatabaseTargetModule,
    TypeOrmModule.forRootAsync({
      inject: [AppConfig, DATABASE_TARGET],
      useFactory: (config: AppConfig, target: DatabaseTarget) => ({
        // A run's transactions never wait on anything outside the database:
        // one idle past the lease is a paused process.
        ...buildDataSourceOptions(
          target,
          config.dbPoolSize,
          Math.max(5_000, config.runLeaseMs),
          config.dbNamedStatements,
        ),
        autoLoadEntities: true,
        retryAttempts: 2,
        retryDelay: 500,
      }),
      dataSourceFactory: async (options?: DataSourceOptions) => {
        // Nest passes the options useFactory returned above.
        if (!options) throw new Error('TypeORM data source options are missing');
        return new DataSource(options).initialize();
      },
    }),
  ],
  providers: [
    TransactionRunner,
    ConfigCache,
    {
      provide: 'MIGRATIONS_APPLIED',
      inject: [AppConfig, DataSource],
      useFactory: async (config: AppConfig, dataSource: DataSource) => {
        if (config.skipMigrations) return false;
        const progress = bootProgress(config);
        const applied = await runMigrationsOnce(dataSource, (count) =>
          progress('Database', `Applying ${count} migration(s); a first start takes a while…`),
        );
        if (applied.length > 0)
          new Logger('Database').log(
            `Applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`,
          );
        return true;
      },
    },
  ],
  exports: [TransactionRunner, ConfigCache, 'MIGRATIONS_APPLIED', DatabaseTargetModule],
})
export class DatabaseModule {}
