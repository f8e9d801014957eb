import { buildDataSourceOptions } from '@warden/database';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DataSource, getMetadataArgsStorage } from 'typeorm';
import { createTestDatabase, urlFor, withAdmin } from '../support/test-database.js';

const LIBS = path.resolve(import.meta.dirname, '../../libs');
/** What a table is, read from the catalog: columns, constraints and indexes, each as PostgreSQL prints it. */
const CATALOG = `
  SELECT c.relname AS table, 'column ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
         || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
         || COALESCE(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
         || CASE WHEN a.attidentity <> '' THEN ' IDENTITY ' || a.attidentity::text ELSE '' END AS item
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE n.nspname = 'public' AND c.relname = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT c.relname, 'constraint ' || k.conname || ' ' || pg_get_constraintdef(k.oid)
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relname = ANY($1) AND k.contype <> 'p'
  UNION ALL
  SELECT c.relname, 'primary key ' || pg_get_constraintdef(k.oid)
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relname = ANY($1) AND k.contype = 'p'
  UNION ALL
  -- TypeORM's @Index has no sort direction, so DESC is not compared.
  SELECT tablename, 'index ' || replace(indexdef, ' DESC', '')
    FROM pg_indexes i
   WHERE schemaname = 'public' AND tablename = ANY($1)
     AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)
  ORDER BY 1, 2`;

const sources = (readdirSync(LIBS, { recursive: true }) as string[]).filter(
  (f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.includes('node_modules'),
);

/**
 * Entities are the schema: the migrations build the database, and the entities must describe exactly what they
 * built, so `npm run migration:generate` (and `npm run schema:diff`) against a migrated database has nothing to say.
 * A statement listed here means an entity and the migrations disagree: fix the entity's metadata (index, unique,
 * check, relation/foreign key, column type/default/nullability), or the migration if the entity is right.
 */
describe('entities and migrations (medium)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataSource: DataSource;

  beforeAll(async () => {
    // Every *.entity.ts, found on disk, so an entity added later is checked without touching this test.
    for (const file of sources.filter((f) => f.endsWith('.entity.ts')))
      await import(pathToFileURL(path.join(LIBS, file)).href);
    db = await createTestDatabase();
    const target = { url: db.url, embedded: false, close: () => Promise.resolve() };
    const entities = getMetadataArgsStorage().tables.map((t) => t.target);
    dataSource = new DataSource({ ...buildDataSourceOptions(target, 2), entities });
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('generates no schema change against the migrated database', async () => {
    const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
    const statements = upQueries.map(
      (q) => `${q.query}${q.parameters?.length ? `  -- ${JSON.stringify(q.parameters)}` : ''};`,
    );
    if (statements.length > 0) {
      throw new Error(
        `The entities disagree with the migrated schema; TypeORM would generate ${statements.length} statement(s):\n${statements.join('\n')}`,
      );
    }
  });

  it('declares every entity in a *.entity.ts file (the CLI loads dist/libs/**/*.entity.js)', () => {
    const elsewhere = sources.filter(
      (f) => !f.endsWith('.entity.ts') && /^@Entity\(/m.test(readFileSync(path.join(LIBS, f), 'utf8')),
    );
    expect(elsewhere).toEqual([]);
  });

  it('has an entity for every table the migrations create', async () => {
    const rows: Array<{ name: string }> = await dataSource.query(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'migrations' ORDER BY 1`,
    );
    const described = new Set(dataSource.entityMetadatas.map((m) => m.tableName));
    expect(rows.map((r) => r.name).filter((t) => !described.has(t))).toEqual([]);
  });

  it('builds, from the entities alone, the same tables the migrations build', async () => {
    const fresh = `${db.name}_e`;
    await withAdmin((c) => c.query(`CREATE DATABASE ${fresh}`));
    const target = { url: urlFor(fresh), embedded: false, close: () => Promise.resolve() };
    const built = new DataSource({ ...buildDataSourceOptions(target, 2), entities: dataSource.options.entities });
    try {
      await built.initialize();
      await built.synchronize();
      const tables = dataSource.entityMetadatas.map((m) => m.tableName);
      const catalogOf = async (ds: DataSource) =>
        (await ds.query<Array<{ table: string; item: string }>>(CATALOG, [tables])).map((r) => `${r.table}: ${r.item}`);
      const [migrated, fromEntities] = [await catalogOf(dataSource), await catalogOf(built)];
      const onlyMigrated = migrated.filter((x) => !fromEntities.includes(x));
      const onlyEntities = fromEntities.filter((x) => !migrated.includes(x));
      expect({ onlyInTheMigratedDatabase: onlyMigrated, onlyInTheEntities: onlyEntities }).toEqual({
        onlyInTheMigratedDatabase: [],
        onlyInTheEntities: [],
      });
    } finally {
      await built.destroy().catch(() => undefined);
      await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${fresh} WITH (FORCE)`));
    }
  });
});
