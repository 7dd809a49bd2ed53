// @ts-check
import { builtinModules } from 'node:module';
import path from 'node:path';

import { defineConfig } from 'eslint/config';
import eslintConfigPrettier from 'eslint-config-prettier/flat';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

import { layersPlugin } from './eslint/importCycles.js';

/** Node builtins, bare (`fs`, `fs/promises`) and prefixed (`node:fs`). */
const nodeBuiltins = builtinModules.filter((name) => !name.startsWith('_'));

const workflowSandboxMessage =
  'Workflow code runs in the deterministic workflow sandbox: no Node builtins, no I/O ' +
  '(docs/architecture.md §2.1, §19). Do it in an activity.';

/** The business areas: each holds its contract.ts, its activities and its workflows. */
const AREAS = '{accounts,order,checkout,tracking,dispute,session,inbox,storeEvents,store}';

/** Area files that run in the worker process, outside the workflow sandbox, besides activities. */
const WORKER_SIDE = [
  'src/session/{sessionTokens,tokenSeal,accountSupplier}.ts',
  'src/session/gauges.ts',
  'src/order/gauges.ts',
  'src/tracking/{sweeperStart,gapGauge}.ts',
  // Ready orders gathered into one signal to their coordinator (its activities use it).
  'src/checkout/readyBuffer.ts',
  'src/storeEvents/{signing,sending,backlogGauge,storeDelivery,storeWrite,storeParcels}.ts',
  // The stores' API clients, and their check (`dropflow store test`).
  'src/store/{shopify,woocommerce,outbound}/**',
  'src/store/{apiError,http,parcel}.ts',
  // A store's orders in: webhooks read, SKUs resolved (the gateway and the activities).
  'src/store/intake/**',
  // The account registry's store and watcher: the worker, the gateway and the CLI read it.
  'src/accounts/*.ts',
];

/** What workflow code may not import: Node builtins, and Temporal's packages for the outside. */
const SANDBOX_IMPORTS = {
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
};

/**
 * The frozen code (every file in a folder of src/frozen; sets.ts, the catalog, aside) imports at
 * runtime only from src/frozen and @temporalio/*, so that no later change of live code alters a
 * recorded history (docs/changing-workflows.md). A type-only import of live code is erased: it
 * may stay. The rule sees only the specifier, so there is one block per depth: from
 * src/frozen/v1/steps/x.ts, `../../../` leaves src/frozen.
 */
function frozenImports() {
  const message =
    'Frozen code imports nothing live at runtime: copy what it needs under src/frozen (docs/changing-workflows.md); `import type` may stay.';
  return [1, 2, 3].map((depth) => ({
    name: `dropflow/frozen-imports-nothing-live-${depth}`,
    files: [`src/frozen/${'*/'.repeat(depth)}*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          ...SANDBOX_IMPORTS,
          patterns: [
            ...SANDBOX_IMPORTS.patterns,
            { regex: `^(\\.\\./){${depth + 1}}(?!frozen/)`, allowTypeImports: true, message },
            { regex: '^(?![./]|@temporalio/)', message },
          ],
        },
      ],
    },
  }));
}

/**
 * The one door from the product to the dev tools (tools/, the @dropflow/devtools workspace): it
 * loads them by dynamic import when a command that needs them runs.
 */
const TOOLS_DOOR = 'src/cli/devtools.ts';

/**
 * The layers of src/, bottom to top (docs/architecture.md §2.1). A file may import its own layer
 * and those below it, never one above: `import type` counts too. A file that matches several
 * layers (an area's contract.ts is also an area file) obeys each, so the lowest rules. The dev
 * tools (tools/) sit above them all, and no layer may import them (TOOLS_DOOR aside).
 */
const LAYERS = [
  {
    name: 'base',
    what: 'the supplier client, outbound URL rules, logging and metric definitions',
    files: ['src/supplier/**', 'src/net/**', 'src/telemetry/**'],
  },
  {
    name: 'contracts',
    what: "the areas' names, signals, queries, updates and types",
    // The order's input (and its validation) and its one-line glance are part of its contract; the
    // terms (the store's deadlines and margin rule, checkout's and the store events' settings) are
    // shared by several areas and the environment.
    files: [`src/${AREAS}/contract.ts`, 'src/order/{orderInput,orderGlance}.ts', 'src/terms/**'],
  },
  { name: 'config', what: 'the validated environment', files: ['src/config/**'] },
  { name: 'temporal', what: 'Temporal infrastructure', files: ['src/temporal/**'] },
  {
    name: 'durable',
    what: 'the shared workflow building blocks, which name no area: areas register with them',
    files: ['src/durable/**'],
  },
  {
    name: 'activities',
    what: "the areas' activities and worker-side helpers",
    files: [`src/${AREAS}/**/activities.ts`, `src/${AREAS}/**/*Activities.ts`, ...WORKER_SIDE],
  },
  {
    name: 'workflows',
    what: "the areas' workflows, their state and steps, and the frozen code",
    files: [`src/${AREAS}/**`, 'src/frozen/**'],
  },
  {
    name: 'entry points',
    what: 'the worker, the client, the gateway and the CLI',
    files: [
      'src/{workflows,versionedWorkflows,activities,replayCheck}.ts',
      'src/{worker,singletons,singletonSupervisor,visibilityGauges}.ts',
      'src/client/**',
      'src/gateway/**',
      'src/cli/**',
    ],
  },
];

/**
 * The folders of src/, bottom to top (docs/architecture.md §2.1): a file imports its own folder
 * and those below it, never one above (`layers/area-order`), so no two folders import each other.
 * The entry points (the top of src/, client/, gateway/, cli/) sit above them all. Shared pieces
 * live low (telemetry, net, supplier, the terms several areas and the environment share, the
 * environment, Temporal's plumbing); the account registry's records (accounts and the store
 * connections they own) sit below every area that reads them.
 * The order uses the areas below it (store, store events, checkout) through their contracts; those
 * above it (disputes, tracking) tell it what happened through its contract. The frozen copies sit
 * on top: no area imports them, src/workflows.ts sends old runs there.
 */
const AREA_ORDER = [
  'telemetry',
  'net',
  'supplier',
  'terms',
  'config',
  'temporal',
  'accounts',
  'durable',
  'session',
  'store',
  'storeEvents',
  'checkout',
  'order',
  'dispute',
  'tracking',
  'inbox',
  'frozen',
];

/** The client and the gateway, like everything below the workflows, see an area's contract only. */
const CONTRACT_USERS = {
  files: ['src/client/**', 'src/gateway/**'],
  allowed: [...LAYERS.slice(0, 4).flatMap((layer) => layer.files), ...WORKER_SIDE],
  message:
    "The client and the gateway import an area's contract.ts, never its activities or workflows.",
};

/** `import-x/no-restricted-paths` zones: each layer, then the contract users, as allow-lists. */
function layerZones() {
  // The rule takes exceptions as absolute globs: a plain file name `x.ts` becomes `@(x.ts)`.
  /** @param {string} glob */
  const absolute = (glob) =>
    path.join(import.meta.dirname, /[*?{(]/.test(glob) ? glob : glob.replace(/[^/]+$/, '@($&)'));
  const layerZones = LAYERS.map((layer, i) => {
    const below = LAYERS.slice(0, i + 1);
    return {
      target: layer.files,
      from: 'src/**',
      except: below.flatMap((l) => l.files).map(absolute),
      message: `The ${layer.name} layer (${layer.what}) imports only ${below.map((l) => l.name).join(', ')} (docs/architecture.md §2.1).`,
    };
  });
  const contractUsers = {
    target: CONTRACT_USERS.files,
    from: 'src/**',
    except: [...CONTRACT_USERS.allowed, ...CONTRACT_USERS.files].map(absolute),
    message: CONTRACT_USERS.message,
  };
  const noTools = {
    target: ['src/**/!(devtools).ts', 'bin/**'],
    from: 'tools/**',
    message: `The product never imports the dev tools but through ${TOOLS_DOOR}, by dynamic import (docs/architecture.md §2.4).`,
  };
  return [...layerZones, contractUsers, noTools];
}

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
      // An area adds its activities to a registry of src/durable/ by declaration merging:
      // `interface SupplierActivities extends ReturnType<typeof orderActivities> {}`.
      '@typescript-eslint/no-empty-object-type': [
        'error',
        { allowInterfaces: 'with-single-extends' },
      ],
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
    },
  },

  // Imports: the layers above, and no cycles (type-only imports included: import-x/no-cycle
  // skips those, so eslint/importCycles.js checks them all). The resolver maps NodeNext's `./x.js`
  // specifiers to `./x.ts`.
  {
    plugins: { 'import-x': importX, layers: layersPlugin },
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
      'layers/no-import-cycle': 'error',
      'layers/area-order': ['error', { areas: AREA_ORDER }],
      'import-x/no-self-import': 'error',
      'import-x/no-duplicates': ['error', { 'prefer-inline': true }],
      'import-x/no-restricted-paths': [
        'error',
        { basePath: import.meta.dirname, zones: layerZones() },
      ],
    },
  },

  // The dev tools use the product as its users do: through the package's public exports
  // (`dropflow/client`, `dropflow/supplier`, … in package.json), never by a relative path into
  // src/ (docs/architecture.md §2.4). Their workspace depends on `dropflow` by name for that.
  {
    name: 'dropflow/tools-use-exports',
    files: ['tools/**/*.ts'],
    rules: { 'import-x/no-relative-packages': 'error' },
  },

  // Workflow code: deterministic, sandboxed (docs/architecture.md §2.1, §19).
  {
    files: [
      'src/{workflows,versionedWorkflows}.ts',
      'src/durable/**/*.ts',
      'src/frozen/**/*.ts',
      'src/terms/**/*.ts',
      `src/${AREAS}/**/*.ts`,
    ],
    // Activities and the worker-side helpers of an area run outside the workflow sandbox.
    ignores: ['**/activities.ts', '**/*Activities.ts', ...WORKER_SIDE],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', SANDBOX_IMPORTS],
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

  // Frozen code imports nothing live at runtime (after the sandbox's rule, which it repeats).
  ...frozenImports(),

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
