/**
 * A local `dropflow` process that ends before it is ready says why in the error itself (the end of
 * its stderr), not only in a log file that a CI machine takes with it.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { expect, it } from 'vitest';

import { DropflowProcess } from '../../tools/src/localStack/dropflowProcess.js';

it('a process that exits before it is ready fails its start with its code and its last stderr', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dropflow-process-'));
  const logFile = join(dir, 'cli.log');
  const cli = new DropflowProcess({
    name: 'cli',
    args: ['submit', '/no/such/order.json'],
    env: process.env,
    logFile,
    ready: /^never$/m,
  });
  try {
    await expect(cli.start()).rejects.toThrow(
      /^cli exited \(1\) before it was ready; see .*cli\.log, which ends:\ndropflow: ENOENT: no such file or directory, open '\/no\/such\/order\.json'/,
    );
    await cli.close();
    expect(await readFile(logFile, 'utf8')).toContain("open '/no/such/order.json'");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
