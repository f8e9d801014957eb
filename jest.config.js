/** Jest 30 in ESM mode (Nest 12 is ESM-only): @swc/jest transpiles; module aliases come from tsconfig.json's paths. */
import { readFileSync } from 'node:fs';

const { compilerOptions } = JSON.parse(readFileSync(new URL('./tsconfig.json', import.meta.url), 'utf8'));
const aliases = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias}$`,
    `<rootDir>/${target.replace(/^\.\//, '')}`,
  ]),
);
const swc = {
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    keepClassNames: true,
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
  swcrc: false,
};

/** What every project shares. */
const base = {
  testEnvironment: 'node',
  rootDir: '.',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: {
    ...aliases,
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
};

/**
 * Specs beside the code (and test/console, test/deploy) are unit specs: no database, no Redis, no server, so the
 * `unit` project has no global set-up (a unit spec that reaches for the test database fails: there is none). These
 * few specs beside the code do need a service and run with the rest.
 */
const NEEDS_SERVICES = ['hooks/src/builtin/audit/audit-chain', 'hooks/src/builtin/rate-limit/connector-rate-limiters'];
const needsServices = `(${NEEDS_SERVICES.join('|')})\\.spec\\.ts$`;

export default {
  projects: [
    {
      ...base,
      displayName: 'unit',
      roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test/console', '<rootDir>/test/deploy'],
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', `<rootDir>/libs/${needsServices}`],
    },
    {
      ...base,
      displayName: 'db',
      roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
      testMatch: ['**/*.spec.ts', '**/*.e2e.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        `<rootDir>/(apps|libs)/(?!${needsServices}).*\\.spec\\.ts$`,
        '<rootDir>/test/(console|deploy)/.*\\.spec\\.ts$',
      ],
      globalSetup: '<rootDir>/test/support/global-setup.js',
      globalTeardown: '<rootDir>/test/support/global-teardown.js',
    },
  ],
  maxWorkers: 2,
  testTimeout: 30_000,
  forceExit: true,
};
