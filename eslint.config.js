// @ts-check
import { builtinModules } from 'node:module';

import { defineConfig } from 'eslint/config';
import eslintConfigPrettier from 'eslint-config-prettier/flat';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Node builtins, bare (`fs`, `fs/promises`) and prefixed (`node:fs`). */
const nodeBuiltins = builtinModules.filter((name) => !name.startsWith('_'));

const workflowSandboxMessage =
  'Workflow code runs in the deterministic workflow sandbox: no Node builtins, no I/O ' +
  '(docs/architecture.md §2.1, §19). Do it in an activity.';

export default defineConfig(
  {
    ignores: ['node_modules/', '.dropflow/', 'coverage/', '.tmp/'],
  },

  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports' },
      ],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // With noUncheckedIndexedAccess, `list[i]!` after a bounds check says more than a throw.
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
    },
  },

  // Imports: no cycles. The resolver maps NodeNext's `./x.js` specifiers to `./x.ts`.
  {
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'],
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.mts', '.cts', '.d.ts', '.js', '.mjs', '.cjs', '.json', '.node'],
          extensionAlias: {
            '.js': ['.ts', '.js'],
            '.mjs': ['.mts', '.mjs'],
            '.cjs': ['.cts', '.cjs'],
          },
          conditionNames: ['types', 'import', 'require', 'default'],
        }),
      ],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-self-import': 'error',
      'import-x/no-duplicates': ['error', { 'prefer-inline': true }],
    },
  },

  // Workflow code: deterministic, sandboxed (docs/architecture.md §2.1, §19).
  {
    files: [
      'src/workflows.ts',
      'src/durable/**/*.ts',
      'src/frozen/**/*.ts',
      'src/{order,checkout,tracking,dispute,session,inbox,storeEvents}/**/*.ts',
    ],
    // Activities and the worker-side helpers of an area run outside the workflow sandbox.
    ignores: [
      '**/activities.ts',
      '**/*Activities.ts',
      'src/session/sessionTokens.ts',
      'src/session/gauges.ts',
      'src/tracking/sweeperStart.ts',
      'src/storeEvents/{signing,sending,history,backlogGauge}.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: workflowSandboxMessage })),
          patterns: [
            {
              group: ['node:*', ...nodeBuiltins.map((name) => `${name}/*`)],
              message: workflowSandboxMessage,
            },
            {
              // Types (e.g. `import type { Client }`) are erased, so they are harmless.
              group: [
                '@temporalio/activity',
                '@temporalio/client',
                '@temporalio/worker',
                '@temporalio/testing',
                '@temporalio/activity/*',
                '@temporalio/client/*',
                '@temporalio/worker/*',
                '@temporalio/testing/*',
              ],
              allowTypeImports: true,
              message:
                'Workflow code may only import @temporalio/workflow and @temporalio/common (docs/architecture.md §19).',
            },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'Date',
          property: 'now',
          message:
            'Workflow time comes from the workflow clock: use `new Date()` inside the workflow (replayed deterministically) or a timer.',
        },
        {
          object: 'Math',
          property: 'random',
          message:
            'Not deterministic on replay: derive values from workflow input or use `uuid4()` from @temporalio/workflow.',
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: workflowSandboxMessage },
        { name: 'Buffer', message: workflowSandboxMessage },
        { name: 'require', message: workflowSandboxMessage },
      ],
    },
  },

  // Plain JavaScript (this file, bin/): not part of the TypeScript program.
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly' },
    },
  },

  // Last: turn off rules that fight with Prettier.
  eslintConfigPrettier,
);
