/**
 * ESLint 9 flat config: typescript-eslint strict + stylistic (type-checked), import-x (no cycles, no duplicates),
 * Prettier owns formatting (eslint-config-prettier last). Each file is typed by its nearest tsconfig
 * (projectService): the server's tsconfig.json, or apps/console/tsconfig.json for the console.
 */
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import { config, configs as tseslintConfigs } from 'typescript-eslint';

export default config(
  {
    ignores: ['dist/', 'coverage/', 'data/', 'test-output/', 'node_modules/', 'apps/console/src/api/schema.d.ts'],
  },
  js.configs.recommended,
  tseslintConfigs.strictTypeChecked,
  tseslintConfigs.stylisticTypeChecked,
  importX.flatConfigs.recommended,
  importX.flatConfigs.typescript,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: ['tsconfig.json', 'apps/console/tsconfig.json'] }),
      ],
    },
    rules: {
      // The demand: no import cycles between files (types included).
      'import-x/no-cycle': 'error',
      'import-x/no-duplicates': 'error',
      'import-x/no-self-import': 'error',
      'import-x/no-useless-path-segments': 'error',
      'import-x/first': 'error',
      // Nest modules, hooks and test doubles are decorated classes with no members of their own.
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true }],
      // DTO classes are shapes for Swagger and class-validator; Nest code returns plain objects of those shapes.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // Numbers in messages are everyday; objects, nullish and unknown values still must be formatted on purpose.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // The code's convention: T[] for simple element types, Array<...> for object literals and unions.
      '@typescript-eslint/array-type': ['error', { default: 'array-simple' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests read untyped JSON (supertest's res.body is any), assert presence by dereferencing and reach into internals
    // through casts: a wrong shape or a missing value fails the test, which is what these rules otherwise guard against.
    files: ['test/**', '**/*.spec.ts', '**/*.e2e.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Teardown guards (`await app?.close()` in afterAll) cover a beforeAll that failed before assigning its `let`s.
      '@typescript-eslint/no-unnecessary-condition': 'off',
    },
  },
  {
    files: ['apps/console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.{ts,tsx}'],
    // TypeScript resolves every import already (typecheck); the resolver misreads some packages' export maps.
    rules: { 'import-x/no-unresolved': 'off' },
  },
  {
    // Plain JS (build script, jest config and set-up, hook fixtures) is outside both tsconfigs: no type information.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslintConfigs.disableTypeChecked],
  },
  prettier,
);
