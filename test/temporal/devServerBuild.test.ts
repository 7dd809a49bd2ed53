/**
 * The dev server that `npx dropflow temporal-cli` builds (src/temporal/cli.ts, devServerMain.go):
 * the test run's server is 1.32 or later, whose matcher hands out the next task while the first
 * waits for its account's rate limit (docs/accounts.md); and the build refuses what it cannot do
 * with a clear error instead of starting something else.
 */
import { execFile } from 'node:child_process';
import { basename } from 'node:path';
import { promisify } from 'node:util';

import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

import { createLogger } from '../../src/telemetry/log.js';
import {
  findTemporalCli,
  TEMPORAL_CLI_VERSION,
  TEMPORAL_SERVER_VERSION,
} from '../../src/temporal/cli.js';
import { freePort, listening } from '../support/ports.js';

const execFileAsync = promisify(execFile);

let connection: Connection;
let cli: string;

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  const found = await findTemporalCli(createLogger('test'));
  if (found === undefined) throw new Error('no Temporal CLI: the test run needs Go or one on PATH');
  cli = found;
});
afterAll(() => connection.close());

/** Runs the build; resolves with its exit code and stderr. */
async function runCli(args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await execFileAsync(cli, args, { timeout: 60_000 });
    return { code: 0, stderr };
  } catch (err) {
    const failed = err as { code?: number; stderr?: string };
    return { code: failed.code ?? -1, stderr: failed.stderr ?? '' };
  }
}

it('the tests run on server 1.32 or later, built by dropflow from CLI v1.9.1 where Go is', async () => {
  expect(basename(cli)).toMatch(new RegExp(`^dropflow-temporal-${TEMPORAL_CLI_VERSION}-`));
  const info = await connection.workflowService.getSystemInfo({});
  const [major = 0, minor = 0] = info.serverVersion.split('.').map(Number);
  expect(major * 1000 + minor, info.serverVersion).toBeGreaterThanOrEqual(1032);
  // The build's name for itself (`--version`) says which server it is: the one it runs.
  expect(info.serverVersion).toBe(TEMPORAL_SERVER_VERSION);
});

it('refuses a command other than `server start-dev`, saying which CLI to use', async () => {
  const { code, stderr } = await runCli(['workflow', 'list']);
  expect(code).toBe(1);
  expect(stderr).toContain('runs only `server start-dev`');
});

it('refuses a bad start-dev flag with the flag and the rule, and starts nothing', async () => {
  const port = await freePort();
  const badType = await runCli([
    'server',
    'start-dev',
    '--headless',
    '--port',
    String(port),
    '--search-attribute',
    'OrderStage=Colour',
  ]);
  expect(badType.code).toBe(1);
  expect(badType.stderr).toContain('search attribute OrderStage: unknown type "Colour"');

  const badJson = await runCli([
    'server',
    'start-dev',
    '--headless',
    '--port',
    String(port),
    '--dynamic-config-value',
    'matching.enableFairness=yes',
  ]);
  expect(badJson.code).toBe(1);
  expect(badJson.stderr).toContain(
    'dynamic config matching.enableFairness: value "yes" is not JSON',
  );

  const unknown = await runCli(['server', 'start-dev', '--no-such-flag']);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('flag provided but not defined: -no-such-flag');
  expect(await listening(port)).toBe(false);
});
