import { PGlite } from '@electric-sql/pglite';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';
import { NamingClient } from './named-statements.js';
import { SnakeNamingStrategy } from './snake-naming.strategy.js';

export interface DatabaseTarget {
  url: string;
  /** true when the URL points at the in-process PGlite server (single session, no LISTEN/NOTIFY across processes). */
  embedded: boolean;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Where the database is: DATABASE_URL, or an embedded PGlite in `pgliteDir` served over the Postgres wire
 * protocol on a loopback port, so the app and the TypeORM CLI use the same `pg` driver and the same SQL.
 */
export async function resolveDatabaseTarget(opts: { url?: string; pgliteDir: string }): Promise<DatabaseTarget> {
  if (opts.url) return { url: opts.url, embedded: false, close: () => Promise.resolve() };
  mkdirSync(opts.pgliteDir, { recursive: true });
  const db = await PGlite.create(opts.pgliteDir, { extensions: { pgcrypto } });
  const port = await freePort();
  const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections: 1 });
  await server.start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    embedded: true,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/**
 * A connection the server drops (failover, pg_terminate_backend) can emit 'error' more than once; TypeORM and the
 * pool each handle the first and then detach, and a second one with no listener would crash the process. This
 * listener stays for the client's life; the pool still discards the broken client.
 */
function keepErrorsHandled(client: { on(event: 'error', listener: (err: Error) => void): unknown }): void {
  client.on('error', () => undefined);
}

/**
 * The one set of DataSource options, used by the app, the CLI (ormconfig.ts) and tests. `idleInTransactionMs`: the
 * server ends a session that sits idle inside a transaction that long — a process paused (SIGSTOP, VM freeze) in the
 * middle of a run's transaction holds row locks that would keep every other instance from taking its runs over.
 * `namedStatements`: long statements are prepared once per connection (named-statements.ts); PGlite's single
 * session is left as it was.
 */
export function buildDataSourceOptions(
  target: DatabaseTarget,
  poolSize: number,
  idleInTransactionMs?: number,
  namedStatements = true,
): DataSourceOptions {
  const idleLimit =
    !target.embedded && idleInTransactionMs ? { idle_in_transaction_session_timeout: idleInTransactionMs } : {};
  const client = !target.embedded && namedStatements ? { Client: NamingClient } : {};
  return {
    type: 'postgres',
    url: target.url,
    uuidExtension: 'pgcrypto',
    synchronize: false,
    migrationsRun: false,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    namingStrategy: new SnakeNamingStrategy(),
    // PGlite is one session: a single pooled connection keeps transactions from interleaving.
    extra: {
      max: target.embedded ? 1 : poolSize,
      connectionTimeoutMillis: 10_000,
      onConnect: keepErrorsHandled,
      ...idleLimit,
      ...client,
    },
  };
}

export function createDataSource(
  target: DatabaseTarget,
  poolSize = 10,
  entities: DataSourceOptions['entities'] = [],
): DataSource {
  return new DataSource({ ...buildDataSourceOptions(target, poolSize), entities });
}
