/**
 * The DataSource for the TypeORM CLI (`npm run migration:run`, `migration:generate`). Same options as the app:
 * DATABASE_URL, or the embedded PGlite in PGLITE_DIR. Run through the build (dist/ormconfig.js).
 */
import { createDataSource, resolveDatabaseTarget } from './libs/database/src/index.js';

const target = await resolveDatabaseTarget({
  url: process.env.DATABASE_URL,
  pgliteDir: process.env.PGLITE_DIR ?? './data/pglite',
});
export default createDataSource(target, 2, ['dist/libs/**/*.entity.js']);
