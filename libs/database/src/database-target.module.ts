import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, bootProgress } from '@warden/common';
import { resolveDatabaseTarget, type DatabaseTarget } from './data-source.js';

export const DATABASE_TARGET = Symbol('DATABASE_TARGET');

/** Stops the embedded PGlite server after everything else has shut down. */
@Injectable()
class EmbeddedDatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(DATABASE_TARGET) private readonly target: DatabaseTarget) {}
  async onApplicationShutdown(): Promise<void> {
    await this.target.close();
  }
}

@Global()
@Module({
  providers: [
    {
      provide: DATABASE_TARGET,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        if (config.usesPglite)
          bootProgress(config)(
            'Database',
            `Starting the embedded database in ${config.pgliteDir} (set DATABASE_URL to use PostgreSQL)…`,
          );
        return resolveDatabaseTarget({ url: config.databaseUrl, pgliteDir: config.pgliteDir });
      },
    },
    EmbeddedDatabaseCloser,
  ],
  exports: [DATABASE_TARGET],
})
export class DatabaseTargetModule {}
