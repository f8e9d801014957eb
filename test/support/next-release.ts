import { cpSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ensureBuilt } from './server-process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Version N+1 of the current build: the same code plus one additive ("expand") migration. */
export interface NextRelease {
  /** Its server entry point (`dist/apps/api/src/main.js` of the copy). */
  main: string;
  /** Its one-shot migration entry point (what the release's Job runs). */
  migrate: string;
  /** The name of the migration only it has. */
  migrationName: string;
  remove(): void;
}

/**
 * Copies `dist/` (built first if stale) under `test-output/`, inside the project so that the copy resolves the same
 * node_modules, and adds a migration that adds a nullable column: what an expand-only release looks like to the
 * version before it (which never reads the column).
 */
export function buildNextRelease(): NextRelease {
  ensureBuilt();
  const dir = path.join(ROOT, 'test-output', `release-next-${randomBytes(4).toString('hex')}`);
  cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
  const migrations = path.join(dir, 'dist/libs/database/src/migrations');
  const migrationName = 'ReleaseProbe1799999999999';
  writeFileSync(
    path.join(migrations, '1799999999999-release-probe.js'),
    `export class ${migrationName} {
  name = '${migrationName}';
  async up(q) { await q.query('ALTER TABLE agents ADD COLUMN release_probe text'); }
  async down(q) { await q.query('ALTER TABLE agents DROP COLUMN release_probe'); }
}
`,
  );
  appendFileSync(
    path.join(migrations, 'index.js'),
    `\nimport { ${migrationName} } from './1799999999999-release-probe.js';\nMIGRATIONS.push(${migrationName});\n`,
  );
  return {
    main: path.join(dir, 'dist/apps/api/src/main.js'),
    migrate: path.join(dir, 'dist/apps/api/src/migrate.js'),
    migrationName,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
