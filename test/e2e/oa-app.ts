import type { DynamicModule, Type } from '@nestjs/common';
import type { EnvironmentInput } from '@warden/common';
import pg from 'pg';
import { startHttpFake, type FakeHandler, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { OA_ACTIONS } from './runtime-helpers.js';

/** The app with the `oa` connector (OA_ACTIONS) on a fake OA server, an admin, and a SQL client on its database. */
export interface OaApp {
  t: TestApp;
  oa: HttpFake;
  db: pg.Client;
  admin: string;
  close(): Promise<void>;
}

/**
 * The common set-up of the gate's e2e suites: a fake OA server answering with `handler`, the app (with `env` and
 * extra `imports`), `alice` (admin, named Alice) and the `oa` connector registered by her.
 */
export async function startOaApp(
  handler: FakeHandler,
  opts: { env?: EnvironmentInput; imports?: Array<Type | DynamicModule> } = {},
): Promise<OaApp> {
  const oa = await startHttpFake(handler);
  const t = await startTestApp(opts.env ?? {}, opts.imports ? { imports: opts.imports } : {});
  const admin = await t.token('alice', 'acme', ['admin'], { name: 'Alice' });
  const res = await t.request('POST', '/api/connectors', {
    token: admin,
    body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
  });
  if (res.status !== 201) throw new Error(`the oa connector was refused: ${res.status} ${res.text}`);
  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  return {
    t,
    oa,
    db,
    admin,
    async close() {
      await db.end();
      await t.close();
      await oa.close();
    },
  };
}
