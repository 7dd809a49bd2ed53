/**
 * One workflow bundle per set of options for the whole test run, shared by every test file:
 * bundling takes about 7 s of CPU, and two dozen files that each bundled the same code cost the
 * fast suite minutes on 2 cores. The first file that asks for a bundle claims it (an exclusive
 * create of its lock) and writes it; the others wait for the file. The folder is the run's own
 * (test/setup/global.ts), so no bundle outlives the code it was made of.
 */
import { createHash } from 'node:crypto';
import { open, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { inject } from 'vitest';
import { eventually } from './eventually.js';

type SharedOptions = Omit<BundleOptions, 'logger'>;

/** How long a file waits for another to write the bundle it claimed. */
const WAIT_FOR_BUNDLE_MS = 180_000;

export async function sharedWorkflowBundle(options: SharedOptions): Promise<{ code: string }> {
  const name = createHash('sha256').update(canonical(options)).digest('hex').slice(0, 16);
  const dir = inject('workflowBundleDir');
  const path = join(dir, `${name}.js`);
  const claimed = await open(`${path}.lock`, 'wx').then(
    async (lock) => {
      await lock.close();
      return true;
    },
    (err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    },
  );
  if (claimed) {
    const { code } = await bundleWorkflowCode({ ...options, logger: quietBundlerLogger });
    await writeFile(`${path}.partial`, code);
    await rename(`${path}.partial`, path);
    return { code };
  }
  const code = await eventually(
    `the workflow bundle ${name}`,
    () => readFile(path, 'utf8').catch(() => undefined),
    (c) => c !== undefined,
    WAIT_FOR_BUNDLE_MS,
  );
  return { code: code! };
}

/** The options as JSON with their keys sorted: the same bundle whatever order they were spread in. */
function canonical(options: SharedOptions): string {
  return JSON.stringify(options, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
}

export const quietBundlerLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string, meta?: Record<string, unknown>) => {
    console.error(message, meta);
  },
  log: () => undefined,
};
