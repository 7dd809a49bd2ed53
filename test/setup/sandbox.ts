/**
 * vitest globalSetup: one real sandbox HTTP server for the whole run, state in a temporary data
 * directory. Test files isolate themselves with their own accounts (test/support/sandbox.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { TestProject } from 'vitest/node';
import { toolsLinkProblem } from '../../src/cli/devtools.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The sandbox imports the product by name (`dropflow/supplier`): say so when that cannot work.
  const problem = toolsLinkProblem();
  if (problem !== undefined)
    throw new Error(`The test setup cannot start the sandbox: ${problem}.`);
  const { startSandbox } = await import('../../tools/src/sandbox/server.js');
  const dataDir = await mkdtemp(join(tmpdir(), 'dropflow-sandbox-'));
  const sandbox = await startSandbox({
    log: pino({ level: 'warn' }, pino.destination(2)),
    port: 0,
    dataDir,
    allowLocalWebhooks: true,
    // Faster than production (1 s, 5 s, 15 s), yet long enough that a receiver slowed by a busy
    // test machine gets its retries.
    webhookRetryDelaysMs: [500, 2_000, 6_000],
    // The strictest reading of the supplier's limits: every request of an account in one budget.
    oneBudget: true,
    // Test files obtain, lose and obtain again their account's tokens within seconds; a file that
    // tests the supplier's 5-minute spacing sets its own account's interval (/__sandbox/settings).
    tokenIntervalSeconds: 1,
  });
  project.provide('sandboxUrl', sandbox.url);
  return async () => {
    await sandbox.close();
    await rm(dataDir, { recursive: true, force: true });
  };
}
