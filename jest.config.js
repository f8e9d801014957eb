/** Jest 30 in ESM mode (Nest 12 is ESM-only): @swc/jest transpiles; module aliases come from tsconfig.json's paths. */
import { readFileSync } from 'node:fs';

const { compilerOptions } = JSON.parse(readFileSync(new URL('./tsconfig.json', import.meta.url), 'utf8'));
const aliases = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target.replace(/^\.\//, '')}`]),
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

export default {
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: {
    ...aliases,
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  maxWorkers: 2,
  testTimeout: 30_000,
  forceExit: true,
};
