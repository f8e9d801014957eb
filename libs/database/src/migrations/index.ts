import { Foundation1764460800000 } from './1764460800000-foundation.js';

/**
 * Every migration, in order. Listed explicitly (not globbed) so that the app, the TypeORM CLI and the
 * test runner load exactly the same classes. A new migration is a new file plus one line here.
 */
export const MIGRATIONS = [Foundation1764460800000];
