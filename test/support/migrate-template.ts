/** Run by global-setup in its own process: migrates the template database named in argv[2]. */
import { createDataSource } from '../../libs/database/src/data-source.js';

const url = process.argv[2];
const ds = createDataSource({ url, embedded: false, close: () => Promise.resolve() }, 2);
await ds.initialize();
await ds.runMigrations({ transaction: 'each' });
await ds.destroy();
