import path from 'node:path';
import type { Environment, EnvironmentInput } from './environment.js';

// AppConfig's settings are read in layers, one concern per file: the server itself (here), who signs in
// (auth-settings.ts), and what runs inside — hooks, runs, telemetry, audit, LLM keys, egress (app-config.ts, the
// injectable). Only these files know environment variable names.

/** The validated environment, with every variable as given (`raw`, for the LLM keys an agent names). */
export type ConfigEnvironment = Environment & { raw: EnvironmentInput };

/** The server process: how it runs and logs, where it listens, and where it keeps its data. */
export class ServerSettings {
  constructor(protected readonly env: ConfigEnvironment) {}

  get port(): number {
    return this.env.PORT ?? 3000;
  }
  get host(): string {
    return this.env.HOST ?? '0.0.0.0';
  }
  get publicUrl(): string {
    return (this.env.PUBLIC_URL ?? `http://127.0.0.1:${this.port}`).replace(/\/$/, '');
  }
  get logLevel(): string {
    return this.env.LOG_LEVEL ?? (this.env.NODE_ENV === 'test' ? 'warn' : 'info');
  }
  get isTest(): boolean {
    return this.env.NODE_ENV === 'test';
  }
  get isProduction(): boolean {
    return this.env.NODE_ENV === 'production';
  }
  /** Pretty, human-readable logs for a person at a terminal; JSON lines for machines and production. */
  get prettyLogs(): boolean {
    return !this.isProduction && !this.isTest && process.stdout.isTTY;
  }
  /** The built web console (apps/console), served at `/`. */
  get consoleDir(): string {
    return path.resolve(this.env.CONSOLE_DIR ?? './dist/console');
  }

  get databaseUrl(): string | undefined {
    return this.env.DATABASE_URL;
  }
  get usesPglite(): boolean {
    return !this.env.DATABASE_URL;
  }
  get pgliteDir(): string {
    return path.resolve(this.env.PGLITE_DIR ?? './data/pglite');
  }
  /** Directory for embedded-mode state (PGlite data, generated encryption key). */
  get dataDir(): string {
    return path.dirname(this.pgliteDir);
  }
  get skipMigrations(): boolean {
    return this.env.DB_SKIP_MIGRATIONS ?? false;
  }
  get dbPoolSize(): number {
    return this.env.DB_POOL_SIZE ?? 10;
  }
  /** Off for a pooler that cannot keep prepared statements (PgBouncer in transaction mode before 1.21). */
  get dbNamedStatements(): boolean {
    return this.env.DB_NAMED_STATEMENTS ?? true;
  }
  /** Never in production: the demo seed prints an admin token and points a connector at the demo OA API. */
  get seedDemo(): boolean {
    return !this.isProduction && (this.env.SEED_DEMO ?? this.usesPglite);
  }
  get demoOaEnabled(): boolean {
    return !this.isProduction;
  }
}
