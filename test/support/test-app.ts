import type { DynamicModule, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mintDevToken } from '@warden/auth';
import type { EnvironmentInput } from '@warden/common';
import { createApp } from '../../apps/api/src/bootstrap.js';
import { OpenApiContract } from './openapi-contract.js';
import { createTestDatabase } from './test-database.js';

export const TEST_DEV_SECRET = 'test-dev-secret-0123456789abcdef';

export interface TestApp {
  app: NestExpressApplication;
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  databaseUrl: string;
  token(sub: string, org: string, roles?: string[], extra?: { name?: string; email?: string }): Promise<string>;
  /** fetch against the app with an optional bearer token; JSON bodies are encoded. */
  request(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; text: string; headers: Headers }>;
  close(): Promise<void>;
}

/** Boots the real app on a fresh PostgreSQL database (cloned from the migrated template) on an ephemeral port. */
/**
 * `opts.imports` adds modules to the real app (e.g. a module providing test-only @Hook classes);
 * `opts.databaseUrl` shares a database between two app instances.
 * `request` throws when a JSON response does not match the OpenAPI document (`opts.contract: false` or WARDEN_CONTRACT=0:
 * not checked).
 */
export async function startTestApp(
  env: EnvironmentInput = {},
  opts: { databaseUrl?: string; imports?: Array<Type | DynamicModule>; contract?: boolean } = {},
): Promise<TestApp> {
  const db = opts.databaseUrl ? undefined : await createTestDatabase();
  const databaseUrl = opts.databaseUrl ?? db!.url;
  const app = await createApp(
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      AUTH_MODE: 'dev',
      AUTH_DEV_SECRET: TEST_DEV_SECRET,
      DATABASE_URL: databaseUrl,
      DB_SKIP_MIGRATIONS: '1',
      SEED_DEMO: 'false',
      CONFIRMATION_POLL_MS: '200',
      CONFIRMATION_ESCALATION_POLL_MS: '200',
      APP_ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdef',
      // The fakes listen on loopback, which the egress policy refuses unless allow-listed.
      EGRESS_ALLOW: '127.0.0.1/32',
      ...env,
    },
    opts.imports ?? [],
  );
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  const contract = (opts.contract ?? process.env.WARDEN_CONTRACT !== '0') ? OpenApiContract.fromApp(app) : undefined;
  return {
    app,
    url,
    databaseUrl,
    token: (sub, org, roles = [], extra = {}) =>
      mintDevToken(env.AUTH_DEV_SECRET ?? TEST_DEV_SECRET, { sub, org, roles, ...extra }),
    async request(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: string | undefined;
      if (o.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      }
      const res = await fetch(url + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      const violations = contract?.violations(method, path, res.status, res.headers.get('content-type'), parsed) ?? [];
      if (violations.length) throw new Error(`response does not match the OpenAPI document:\n${violations.join('\n')}`);
      return { status: res.status, body: parsed, text, headers: res.headers };
    },
    async close() {
      await app.close();
      await db?.drop();
    },
  };
}
