/**
 * `dropflow worker` as an operator runs it: polls its account's queues, serves Prometheus metrics,
 * and drains on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { expect, inject, it } from 'vitest';
import { newSandboxAccount } from '../support/sandbox.js';
import { freePort } from '../support/ports.js';

it('polls its queues, serves /metrics, and stops cleanly on SIGTERM', async () => {
  const account = await newSandboxAccount();
  const port = await freePort();
  const prefix = `cli-worker-${process.pid}`;
  const child = spawn(
    process.execPath,
    [
      'bin/dropflow.js',
      'worker',
      '--temporal-address',
      inject('temporalAddress'),
      '--task-queue-prefix',
      prefix,
      '--metrics-port',
      String(port),
      '--no-tracking-sweeper',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        SUPPLIER_BASE_URL: account.url,
        SUPPLIER_API_KEY: account.apiKey,
        // As in production: the worker refuses to start without one.
        DROPFLOW_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      },
    },
  );
  let polling = '';
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.startsWith('worker: polling')) {
      polling = line;
      break;
    }
  }
  expect(polling).toContain(`${prefix}/supplier-api`);

  const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(metrics.status).toBe(200);
  expect(await metrics.text()).toMatch(/^temporal_/m);

  child.kill('SIGTERM');
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  expect({ code, signal }).toEqual({ code: 0, signal: null });
});
