/**
 * The one door from the product to the dev tools (tools/, the private `@dropflow/devtools`
 * workspace): the sandbox for `dropflow dev` and `dropflow sandbox`, the benches for
 * `dropflow bench …`. Loaded when such a command runs, never imported statically, so the product
 * runs without them: the worker image and an installed `dropflow` package carry no tools/.
 *
 * By relative path rather than by package name: it is always this checkout's tools, also in a git
 * worktree whose node_modules (and its `@dropflow/devtools` link) belongs to another checkout.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { CommandError } from './failure.js';

export async function loadSandboxTools(command: string) {
  requireTools(command, 'sandbox');
  return import('../../tools/src/sandbox/index.js');
}

export async function loadBenchTools(command: string) {
  requireTools(command, 'bench');
  return import('../../tools/src/bench/index.js');
}

/** Whether this installation has the dev tools: a source checkout does, the image does not. */
export function devtoolsInstalled(entry: 'sandbox' | 'bench' = 'sandbox'): boolean {
  return existsSync(fileURLToPath(new URL(`../../tools/src/${entry}/index.ts`, import.meta.url)));
}

function requireTools(command: string, entry: 'sandbox' | 'bench'): void {
  if (devtoolsInstalled(entry)) return;
  throw new CommandError(
    `\`${command}\` needs dropflow's dev tools (tools/, the @dropflow/devtools workspace), which ` +
      'this installation does not have: the worker image and the npm package carry the product ' +
      'only. Run it from a source checkout (git clone, then npm ci).',
    'DEVTOOLS_MISSING',
  );
}
