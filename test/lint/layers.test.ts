/**
 * The import rules of eslint.config.js (docs/architecture.md §2.1): the layers, and no import
 * cycle, type-only imports included. Linted with the project's own import rules, without the
 * type-aware ones (which need the files in the TypeScript program).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '../..');
const configUrl = pathToFileURL(join(repo, 'eslint.config.js')).href;
const { default: config } = (await import(configUrl)) as { default: Linter.Config[] };
const importRules = config.find((c) => c.plugins?.layers !== undefined);
if (importRules === undefined) throw new Error('eslint.config.js has no import rules');
const toolsRules: Linter.Config =
  config.find((c) => c.name === 'dropflow/tools-use-exports') ??
  missing('eslint.config.js has no rule for the dev tools');

function missing(what: string): never {
  throw new Error(what);
}

function linter(cwd: string, rules: Linter.RulesRecord = {}): ESLint {
  return new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
      { ...importRules, files: ['**/*.ts'], ...(Object.keys(rules).length > 0 && { rules }) },
      ...(Object.keys(rules).length > 0 ? [] : [toolsRules]),
    ],
  });
}

async function problems(eslint: ESLint, code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? ''}: ${m.message}`);
}

describe('the layers', () => {
  const eslint = linter(repo);

  it('lets the gateway use a contract, not an activity', async () => {
    const probe = join(repo, 'src/gateway/probe.ts');
    expect(await problems(eslint, "import '../checkout/contract.js';", probe)).toEqual([]);
    expect(await problems(eslint, "import '../checkout/startActivities.js';", probe)).toEqual([
      expect.stringMatching(/^import-x\/no-restricted-paths: .*contract\.ts, never its activities/),
    ]);
  });

  it('counts a type-only import from a contract into a workflow file', async () => {
    const probe = join(repo, 'src/tracking/probe.ts');
    expect(
      await problems(
        eslint,
        "import type { trackingSweeper } from './trackingSweeper.js';\nexport type T = typeof trackingSweeper;",
        join(repo, 'src/tracking/contract.ts'),
      ),
    ).toContainEqual(expect.stringMatching(/The contracts layer .* imports only base, contracts/));
    // A workflow file may import its area's contract and the shared building blocks.
    expect(
      await problems(
        eslint,
        "import './contract.js';\nimport '../durable/supplierStep.js';",
        probe,
      ),
    ).toEqual([]);
  });

  it('keeps the supplier client below Temporal', async () => {
    const probe = join(repo, 'src/supplier/probe.ts');
    expect(await problems(eslint, "import '../temporal/taskQueues.js';", probe)).toEqual([
      expect.stringMatching(/^layers\/area-order: supplier\/ sits below temporal\//),
      expect.stringMatching(/^import-x\/no-restricted-paths: .*The base layer/),
    ]);
  });

  it('keeps the shared building blocks below the areas', async () => {
    const probe = join(repo, 'src/durable/probe.ts');
    expect(await problems(eslint, "import '../accounts/contract.js';", probe)).toEqual([]);
    for (const area of ['../order/activities.js', '../checkout/paymentActivities.js']) {
      expect(await problems(eslint, `import type { A } from '${area}';`, probe)).toEqual([
        expect.stringMatching(/^layers\/area-order: durable\/ sits below /),
        expect.stringMatching(
          /^import-x\/no-restricted-paths: .*The durable layer .* imports only base, contracts, config, temporal, durable /,
        ),
      ]);
    }
  });

  it('keeps the areas in their order: one that tells another imports its contract, never back', async () => {
    const climbs = /^layers\/area-order: order\/ sits below tracking\//;
    expect(
      await problems(eslint, "import '../order/contract.js';", join(repo, 'src/tracking/probe.ts')),
    ).toEqual([]);
    expect(
      await problems(
        eslint,
        "import type { T } from '../tracking/contract.js';",
        join(repo, 'src/order/probe.ts'),
      ),
    ).toEqual([expect.stringMatching(climbs)]);
    expect(
      await problems(eslint, "import '../dispute/contract.js';", join(repo, 'src/order/probe.ts')),
    ).toEqual([expect.stringMatching(/^layers\/area-order: order\/ sits below dispute\//)]);
    expect(
      await problems(eslint, "import '../order/contract.js';", join(repo, 'src/accounts/probe.ts')),
    ).toEqual([expect.stringMatching(/^layers\/area-order: accounts\/ sits below order\//)]);
  });

  it('keeps the frozen copies out of every area', async () => {
    const frozen = "import '../frozen/v1/fulfillOrder.js';";
    expect(await problems(eslint, frozen, join(repo, 'src/order/probe.ts'))).toEqual([
      expect.stringMatching(/^layers\/area-order: order\/ sits below frozen\//),
    ]);
    expect(
      await problems(eslint, "import './frozen/v1/fulfillOrder.js';", join(repo, 'src/probe.ts')),
    ).toEqual([]);
  });

  it('lets frozen code import live code for its types only', async () => {
    const frozenRules = config.filter(
      (c) => c.name?.startsWith('dropflow/frozen-imports') === true,
    );
    const eslint = new ESLint({
      cwd: repo,
      overrideConfigFile: true,
      overrideConfig: [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser },
          plugins: { '@typescript-eslint': tseslint.plugin },
        },
        ...frozenRules,
      ],
    });
    const live = /^@typescript-eslint\/no-restricted-imports: .*Frozen code imports nothing live/;
    for (const file of ['v1/order', 'v1/steps/checkout', 'common/supplierStep']) {
      const probe = join(repo, `src/frozen/${file}.ts`);
      const up = '../'.repeat(file.split('/').length);
      const value = `import { Stage } from '${up}order/contract.js';\nexport const s = Stage;`;
      const type = `import type { Stage } from '${up}order/contract.js';\nexport type S = Stage;`;
      const own = `import { Stage } from '${up}frozen/common/contracts.js';\nexport const s = Stage;`;
      expect(await problems(eslint, value, probe)).toEqual([expect.stringMatching(live)]);
      expect(await problems(eslint, type, probe)).toEqual([]);
      expect(await problems(eslint, own, probe)).toEqual([]);
    }
  });

  it('fails each climb that was once allowed, when it is put back', async () => {
    // The environment read checkout's and the store events' settings from their contracts, and the
    // account registry its store connections and the store events' secret rule (issue 29).
    const putBack = [
      ['config/environment', 'checkout'],
      ['config/environment', 'storeEvents'],
      ['accounts/registry', 'store'],
      ['accounts/registryStores', 'store'],
      ['accounts/storeEdits', 'store'],
      ['accounts/registryEdits', 'storeEvents'],
    ] as const;
    for (const [file, to] of putBack) {
      const snippet = `import type { T } from '../${to}/contract.js';\nexport type U = T;`;
      expect(await problems(eslint, snippet, join(repo, `src/${file}.ts`))).toEqual([
        expect.stringMatching(
          new RegExp(`^layers/area-order: ${file.split('/')[0]}/ sits below ${to}/`),
        ),
      ]);
    }
  });

  it('keeps checkout from the order: the coordinator knows orders only through its contract', async () => {
    const climbs = /^layers\/area-order: checkout\/ sits below order\//;
    for (const file of ['batch', 'contract', 'startActivities', 'marginBatch']) {
      const probe = join(repo, `src/checkout/${file}.ts`);
      expect(await problems(eslint, "import '../order/contract.js';", probe)).toEqual([
        expect.stringMatching(climbs),
      ]);
    }
  });

  it('keeps the dev tools out of the product but for its one door', async () => {
    const tool = "export const tools = () => import('../../tools/src/sandbox/index.js');";
    expect(await problems(eslint, tool, join(repo, 'src/cli/devtools.ts'))).toEqual([]);
    const staticImport = "import '../../../tools/src/sandbox/server.js';";
    expect(await problems(eslint, staticImport, join(repo, 'src/cli/commands/sandbox.ts'))).toEqual(
      [expect.stringMatching(/^import-x\/no-restricted-paths: .*never imports the dev tools/)],
    );
  });
});

describe('the dev tools', () => {
  const eslint = linter(repo);
  const probe = join(repo, 'tools/src/bench/probe.ts');

  it('use the product through its public exports', async () => {
    const exported = "import { OrderClient } from 'dropflow/client';\nimport 'dropflow/supplier';";
    expect(await problems(eslint, exported, probe)).toEqual([]);
  });

  it('never reach into src/ by a relative path', async () => {
    expect(await problems(eslint, "import '../../../src/supplier/errors.js';", probe)).toEqual([
      expect.stringMatching(/^import-x\/no-relative-packages: /),
    ]);
    const deeper = join(repo, 'tools/src/sandbox/routes/probe.ts');
    expect(await problems(eslint, "import '../../../../src/telemetry/log.js';", deeper)).toEqual([
      expect.stringMatching(/^import-x\/no-relative-packages: /),
    ]);
  });
});

describe('no import cycle', () => {
  let dir: string;
  let eslint: ESLint;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dropflow-cycles-'));
    await writeFile(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = B[];\n");
    await writeFile(join(dir, 'b.ts'), "import type { C } from './c.js';\nexport type B = C;\n");
    await writeFile(join(dir, 'c.ts'), "import type { A } from './a.js';\nexport type C = A;\n");
    await writeFile(join(dir, 'd.ts'), "import type { A } from './a.js';\nexport type D = A;\n");
    eslint = linter(dir, { 'layers/no-import-cycle': 'error' });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reports a cycle of type-only imports, with its route', async () => {
    const [result] = await eslint.lintFiles(['a.ts']);
    expect(result?.messages.map((m) => m.message)).toEqual([
      'Import cycle: a.ts → b.ts → c.ts → a.ts',
    ]);
  });

  it('leaves a file that only imports into a cycle alone', async () => {
    const [result] = await eslint.lintFiles(['d.ts']);
    expect(result?.messages).toEqual([]);
  });
});
