import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import { DEV_AUTH_SECRET_DEFAULT, type Environment, type EnvironmentInput } from './environment.js';

/** Typed, validated configuration. The only place in the app that knows environment variable names. */
@Injectable()
export class AppConfig {
  private readonly env: Environment & { raw: EnvironmentInput };
  readonly instanceId: string;

  constructor(config: ConfigService) {
    this.env = config.get('warden') as Environment & { raw: EnvironmentInput };
    this.instanceId = this.env.INSTANCE_ID ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  }

  get port(): number { return this.env.PORT ?? 3000; }
  get host(): string { return this.env.HOST ?? '0.0.0.0'; }
  get publicUrl(): string { return (this.env.PUBLIC_URL ?? `http://127.0.0.1:${this.port}`).replace(/\/$/, ''); }
  get logLevel(): string { return this.env.LOG_LEVEL ?? (this.env.NODE_ENV === 'test' ? 'warn' : 'info'); }
  get isTest(): boolean { return this.env.NODE_ENV === 'test'; }
  get isProduction(): boolean { return this.env.NODE_ENV === 'production'; }
  /** Pretty, human-readable logs for a person at a terminal; JSON lines for machines and production. */
  get prettyLogs(): boolean { return !this.isProduction && !this.isTest && process.stdout.isTTY === true; }
  /** The built web console (apps/console), served at `/`. */
  get consoleDir(): string { return path.resolve(this.env.CONSOLE_DIR ?? './dist/console'); }

  get databaseUrl(): string | undefined { return this.env.DATABASE_URL; }
  get usesPglite(): boolean { return !this.env.DATABASE_URL; }
  get pgliteDir(): string { return path.resolve(this.env.PGLITE_DIR ?? './data/pglite'); }
  /** Directory for embedded-mode state (PGlite data, generated encryption key). */
  get dataDir(): string { return path.dirname(this.pgliteDir); }
  get skipMigrations(): boolean { return this.env.DB_SKIP_MIGRATIONS ?? false; }
  get dbPoolSize(): number { return this.env.DB_POOL_SIZE ?? 10; }
  get seedDemo(): boolean { return this.env.SEED_DEMO ?? this.usesPglite; }

  get authMode(): 'dev' | 'oidc' {
    return (this.env.AUTH_MODE as 'dev' | 'oidc' | undefined) ?? (this.env.OIDC_ISSUER || this.env.OIDC_JWKS_URL ? 'oidc' : 'dev');
  }
  get devSecret(): string { return this.env.AUTH_DEV_SECRET ?? DEV_AUTH_SECRET_DEFAULT; }
  get devSecretIsDefault(): boolean { return !this.env.AUTH_DEV_SECRET; }
  /** The console's dev sign-in form mints tokens for anyone: dev auth outside production only. */
  get devSignIn(): boolean { return this.authMode === 'dev' && !this.isProduction; }
  get oidcIssuer(): string | undefined { return this.env.OIDC_ISSUER; }
  get oidcJwksUrl(): string | undefined { return this.env.OIDC_JWKS_URL; }
  get oidcAudience(): string | undefined { return this.env.OIDC_AUDIENCE; }
  /** The console's public OIDC client (authorization code + PKCE, no secret). */
  get oidcClientId(): string | undefined { return this.env.OIDC_CLIENT_ID; }
  get orgClaim(): string { return this.env.AUTH_ORG_CLAIM ?? 'org_id'; }
  get rolesClaim(): string { return this.env.AUTH_ROLES_CLAIM ?? 'roles'; }

  get encryptionKey(): string | undefined { return this.env.APP_ENCRYPTION_KEY; }
  get hooksDir(): string { return path.resolve(this.env.HOOKS_DIR ?? './hooks'); }
  get redisUrl(): string | undefined { return this.env.REDIS_URL; }
  get confirmationPollMs(): number { return this.env.CONFIRMATION_POLL_MS ?? 1500; }
  get runLeaseMs(): number { return this.env.RUN_LEASE_MS ?? 15000; }
  /** How often each instance looks for runs whose lease expired (their instance died or stopped). */
  get runRecoveryMs(): number { return this.env.RUN_RECOVERY_MS ?? 1000; }
  /** Upper bound for one LLM call, streaming included. */
  get llmTimeoutMs(): number { return this.env.LLM_TIMEOUT_MS ?? 60000; }
  /** Upper bound for one connector HTTP request. */
  get connectorTimeoutMs(): number { return this.env.CONNECTOR_TIMEOUT_MS ?? 30000; }

  /** Reads a secret named by configuration (an agent's `api_key_env`). Never logged. */
  secretFromEnv(name: string): string | undefined {
    return this.env.raw[name];
  }
}
