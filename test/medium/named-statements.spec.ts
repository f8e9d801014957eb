import { buildDataSourceOptions } from '@warden/database';
import { DataSource, type QueryRunner } from 'typeorm';
import { createTestDatabase } from '../support/test-database.js';

/** A long statement with explicit columns (named) and one returning `*` (never named), on a table of the test's own. */
const PAD = `/* ${'a long statement, as a run write is '.repeat(6)} */`;
const EXPLICIT = `WITH bumped AS (UPDATE named_probe SET n = n + $2::int WHERE id = $1 RETURNING id, n)
  SELECT id, n FROM bumped ${PAD}`;
const STAR = `WITH bumped AS (UPDATE named_probe SET n = n + $2::int WHERE id = $1 RETURNING *) SELECT * FROM bumped ${PAD}`;

/** The app's DataSource options on a real PostgreSQL: which statements become prepared ones, per connection. */
describe('named statements (medium)', () => {
  let drop: () => Promise<void>;
  const sources: DataSource[] = [];

  async function session(namedStatements: boolean): Promise<QueryRunner> {
    const ds = new DataSource(
      buildDataSourceOptions({ url, embedded: false, close: () => Promise.resolve() }, 2, 0, namedStatements),
    );
    sources.push(await ds.initialize());
    const runner = ds.createQueryRunner();
    await runner.connect();
    await runner.query(`CREATE TABLE IF NOT EXISTS named_probe (id int PRIMARY KEY, n int NOT NULL DEFAULT 0)`);
    await runner.query(`INSERT INTO named_probe (id) VALUES (1) ON CONFLICT DO NOTHING`);
    return runner;
  }
  const prepared = async (runner: QueryRunner): Promise<string[]> =>
    (await runner.query(`SELECT statement FROM pg_prepared_statements`)).map((r: { statement: string }) => r.statement);
  let url: string;

  beforeAll(async () => {
    const db = await createTestDatabase();
    url = db.url;
    drop = db.drop;
  });
  afterAll(async () => {
    for (const ds of sources) await ds.destroy();
    await drop();
  });

  it('prepares a long statement once on its connection and runs it with each call’s values', async () => {
    const runner = await session(true);
    const first = await runner.query(EXPLICIT, [1, 5]);
    const second = await runner.query(EXPLICIT, [1, 7]);
    expect(second[0].n - first[0].n).toBe(7);
    expect((await prepared(runner)).filter((s) => s === EXPLICIT)).toHaveLength(1);
    await runner.release();
  });

  it('a prepared statement keeps working after a migration adds a column, and a `*` one shows the new column', async () => {
    const runner = await session(true);
    await runner.query(EXPLICIT, [1, 1]);
    await runner.query(STAR, [1, 1]);
    // What a release's migration does while older instances keep their connections.
    await runner.query(`ALTER TABLE named_probe ADD COLUMN IF NOT EXISTS note text`);
    await expect(runner.query(EXPLICIT, [1, 1])).resolves.toHaveLength(1);
    const widened = await runner.query(STAR, [1, 1]);
    expect(Object.keys(widened[0])).toContain('note');
    expect(await prepared(runner)).not.toContain(STAR);
    await runner.release();
  });

  it('with DB_NAMED_STATEMENTS off nothing is prepared', async () => {
    const runner = await session(false);
    await runner.query(EXPLICIT, [1, 1]);
    await runner.query(EXPLICIT, [1, 1]);
    expect(await prepared(runner)).toEqual([]);
    await runner.release();
  });
});
