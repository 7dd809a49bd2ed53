/**
 * The one door from the product to the dev tools (tools/, the private `@dropflow/devtools`
 * workspace): the sandbox for `dropflow dev` and `dropflow sandbox`, the store doubles for `dropflow dev`, the benches for
 * `dropflow bench …`. Loaded when such a command runs, never imported statically, so the product
 * runs without them: the worker image and an installed `dropflow` package carry no tools/.
 *
 * By relative path rather than by package name: it is always this checkout's tools, also in a git
 * worktree whose node_modules (and its `@dropflow/devtools` link) belongs to another checkout. The
 * tools import the product by name (`dropflow/supplier`, …), through the `node_modules/dropflow`
 * link `npm install` makes: that link must lead back to this checkout (toolsLinkProblem).
 */
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { CommandError } from './failure.js';

type DevtoolsEntry = 'sandbox' | 'bench' | 'storeDoubles';

export async function loadSandboxTools(command: string) {
  requireTools(command, 'sandbox');
  return import('../../tools/src/sandbox/index.js');
}

export async function loadStoreDoubles(command: string) {
  requireTools(command, 'storeDoubles');
  return import('../../tools/src/storeDoubles/index.js');
}

export async function loadBenchTools(command: string) {
  requireTools(command, 'bench');
  return import('../../tools/src/bench/index.js');
}

/** Whether this installation has the dev tools: a source checkout does, the image does not. */
export function devtoolsInstalled(entry: DevtoolsEntry = 'sandbox'): boolean {
  return existsSync(fileURLToPath(new URL(`../../tools/src/${entry}/index.ts`, import.meta.url)));
}

/**
 * Why the tools cannot load this checkout's product by name, if they cannot: no
 * `node_modules/dropflow` link yet (a checkout installed before the tools used it), or one that
 * leads to another checkout (a worktree sharing another's node_modules).
 */
export function toolsLinkProblem(): string | undefined {
  const here = realpathSync(fileURLToPath(new URL('../..', import.meta.url)));
  let linked: string;
  try {
    // Resolved from the tools' own package, as their imports are (here it would name itself).
    const tools = createRequire(new URL('../../tools/package.json', import.meta.url));
    const manifest = tools.resolve('dropflow/package.json');
    linked = realpathSync(dirname(manifest));
  } catch {
    return `the dev tools import the product as \`dropflow/…\`, and ${here}/node_modules has no \`dropflow\` link: run \`npm install\` there`;
  }
  if (linked === here) return undefined;
  return `the dev tools import the product as \`dropflow/…\`, which leads to ${linked}, not to this checkout (${here}): give this checkout its own node_modules (\`npm ci\`)`;
}

function requireTools(command: string, entry: DevtoolsEntry): void {
  if (devtoolsInstalled(entry)) {
    const problem = toolsLinkProblem();
    if (problem === undefined) return;
    throw new CommandError(`\`${command}\`: ${problem}.`, 'DEVTOOLS_MISSING');
  }
  throw new CommandError(
    `\`${command}\` needs dropflow's dev tools (tools/, the @dropflow/devtools workspace), which ` +
      'this installation does not have: the worker image and the npm package carry the product ' +
      'only. Run it from a source checkout (git clone, then npm ci).',
    'DEVTOOLS_MISSING',
  );
}
