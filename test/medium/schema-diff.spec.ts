import { buildDataSourceOptions } from '@warden/database';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DataSource, getMetadataArgsStorage, type DataSourceOptions } from 'typeorm';
import { createTestDatabase } from '../support/test-database.js';

const LIBS = path.resolve(import.meta.dirname, '../../libs');
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
    for (const file of sources.filter((f) => f.endsWith('.entity.ts'))) await import(pathToFileURL(path.join(LIBS, file)).href);
    db = await createTestDatabase();
    const target = { url: db.url, embedded: false, close: async () => undefined };
    const entities = getMetadataArgsStorage().tables.map((t) => t.target);
    dataSource = new DataSource({ ...buildDataSourceOptions(target, 2), entities } as DataSourceOptions);
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('declares every entity in a *.entity.ts file (the CLI loads dist/libs/**/*.entity.js)', () => {
    const elsewhere = sources.filter((f) => !f.endsWith('.entity.ts') && /^@Entity\(/m.test(readFileSync(path.join(LIBS, f), 'utf8')));
    expect(elsewhere).toEqual([]);
  });

  it('generates no schema change against the migrated database', async () => {
    const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
    const statements = upQueries.map((q) => `${q.query}${q.parameters?.length ? `  -- ${JSON.stringify(q.parameters)}` : ''};`);
    if (statements.length > 0) {
      throw new Error(`The entities disagree with the migrated schema; TypeORM would generate ${statements.length} statement(s):\n${statements.join('\n')}`);
    }
  });
});
