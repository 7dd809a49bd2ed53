/**
 * Door 4 of issue 28: without DROPFLOW_ENCRYPTION_KEY the worker only logged "payloads stored in
 * clear" and went on, so orders, addresses and the supplier's tokens sat in Temporal's history in
 * clear. Now `dropflow worker` and `dropflow gateway` refuse to start without a key, naming the
 * variable and the flag, unless the operator writes `--insecure` in their command.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { runDropflow } from '../support/cli.js';

// No key anywhere: no variable, and no `dropflow dev` key in the data directory.
const dataDir = mkdtempSync(join(tmpdir(), 'dropflow-insecure-'));
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});
const env = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('DROPFLOW_')),
);
// Nothing listens there: a process that gets past the key check stops at its first connection.
const unreachable = ['--temporal-address', '127.0.0.1:1', '--task-queue-prefix', 'insecure'];

describe.each([
  ['worker', ['worker', '--metrics-port', '0', '--replay-check', '0']],
  ['gateway', ['gateway', '--host', '127.0.0.1', '--port', '0', '--metrics-port', '0']],
])('dropflow %s', (command, args) => {
  const run = (...more: string[]) =>
    runDropflow([...args, ...unreachable, ...more], {
      env: { ...env, DROPFLOW_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    });

  it('refuses to store payloads in clear: no key, no start, and says how to mend it', async () => {
    const { code, stderr, stdout } = await run();
    expect(code).toBe(1);
    expect(stderr).toContain(`refusing to start \`dropflow ${command}\` without an encryption key`);
    expect(stderr).toContain('DROPFLOW_ENCRYPTION_KEY');
    expect(stderr).toContain('--insecure');
    // It did not get as far as Temporal.
    expect(stderr).not.toContain('cannot reach Temporal');
    expect(stdout).toBe('');
  });

  it('starts without a key only when told --insecure in words', async () => {
    const { code, stderr } = await run('--insecure');
    expect(code).toBe(1);
    expect(stderr).not.toContain('without an encryption key');
    expect(stderr).toContain('cannot reach Temporal at 127.0.0.1:1');
  });
});
