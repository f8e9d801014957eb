// Regenerates the console's typed API client types from the server's routes and DTOs (`npm run openapi`).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONSOLE_SCHEMA, consoleApiTypes } from '../apps/api/src/openapi/openapi-types.js';

const target = path.resolve(import.meta.dirname, '..', CONSOLE_SCHEMA);
writeFileSync(target, await consoleApiTypes());
console.log(`wrote ${CONSOLE_SCHEMA}`);
process.exit(0);
