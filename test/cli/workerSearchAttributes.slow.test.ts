/**
 * `dropflow worker` refuses to start in a namespace that lacks dropflow's search attributes
 * (an order upserting one would stop), naming them and what to do, before it polls anything.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

import { expect, inject, it } from 'vitest';
import { useNewNamespace } from '../support/temporal.js';

const run = promisify(execFile);
const ns = useNewNamespace('worker-sa');
const namespace = ns.namespace;

it('refuses to start in a namespace without the search attributes', async () => {
  const worker = run(
    process.execPath,
    [
      'bin/dropflow.js',
      'worker',
      '--temporal-address',
      inject('temporalAddress'),
      '--namespace',
      namespace,
      '--task-queue-prefix',
      `worker-sa-${process.pid}`,
      '--metrics-port',
      '0',
      '--no-tracking-sweeper',
    ],
    {
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        DROPFLOW_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      },
    },
  );
  const failed = (await worker.then(
    () => undefined,
    (err: unknown) => err,
  )) as { code?: number; stdout?: string; stderr?: string } | undefined;
  expect(failed, 'the worker started').toBeDefined();
  expect(failed?.code).toBe(1);
  expect(failed?.stderr).toContain(
    `dropflow: refusing to start: namespace ${namespace} lacks search attributes `,
  );
  expect(failed?.stderr).toContain('StoreEventsBehind (Bool)');
  expect(failed?.stderr).toContain(
    'run "dropflow setup" (self-hosted) or add them in Temporal Cloud first',
  );
  expect(failed?.stdout).not.toContain('worker: polling');
});
