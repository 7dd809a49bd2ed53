/**
 * `dropflow worker` with WORKER_DEPLOYMENT_NAME: it polls its orders queue as a Worker Deployment
 * Version whose build id it derives from the package version and its workflow code.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Connection } from '@temporalio/client';
import { expect, inject, it } from 'vitest';

import pkg from '../../package.json' with { type: 'json' };
import { taskQueues } from '../../src/temporal/taskQueues.js';
import { eventually } from '../support/eventually.js';
import { newSandboxAccount } from '../support/sandbox.js';

it('polls its orders queue as <name>:<package version>-<code hash>, and the server knows it', async () => {
  const account = await newSandboxAccount();
  const prefix = `cli-versioned-${process.pid}`;
  const deploymentName = `cli-${process.pid}-${Date.now().toString(36)}`;
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
      '0',
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
        WORKER_DEPLOYMENT_NAME: deploymentName,
      },
    },
  );
  const exited = once(child, 'exit');
  try {
    await pollsAsVersion();
  } finally {
    // Also when an expectation failed: no worker outlives the test.
    if (child.exitCode === null) child.kill('SIGTERM');
  }
  const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
  expect({ code, signal }).toEqual({ code: 0, signal: null });

  async function pollsAsVersion(): Promise<void> {
    let polling = '';
    for await (const line of createInterface({ input: child.stdout })) {
      if (line.startsWith('worker: polling')) {
        polling = line;
        break;
      }
    }
    const version = new RegExp(`as version ${deploymentName}:(${pkg.version}-[0-9a-f]{12})`);
    expect(polling).toMatch(version);
    const buildId = version.exec(polling)![1]!;

    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const queues = await eventually(
        'the server lists the version with its queue',
        async () => {
          try {
            const { workerDeploymentVersionInfo } =
              await connection.workflowService.describeWorkerDeploymentVersion({
                namespace: inject('temporalNamespace'),
                deploymentVersion: { deploymentName, buildId },
              });
            return (workerDeploymentVersionInfo?.taskQueueInfos ?? []).map((q) => q.name);
          } catch {
            return []; // not found until the first poll reaches the server
          }
        },
        (names) => names.length > 0,
      );
      // The orders queue only: the supplier queues stay unversioned.
      expect([...new Set(queues)]).toEqual([taskQueues(prefix).orders]);
    } finally {
      await connection.close();
    }
  }
});
