/**
 * An order's workflow that does not answer — its workflow task keeps failing, or no worker runs
 * it — does not leave `dropflow status` or an action hanging: the command gives up after
 * ANSWER_TIMEOUT_SECONDS, says why, and exits non-zero (with `--json`, the usual error document).
 */
import { fileURLToPath } from 'node:url';

import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { ORDER_WORKFLOW, orderWorkflowId } from '../../src/order/contract.js';
import { runDropflow } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { silentLogger as quiet } from '../support/logger.js';

const BROKEN = fileURLToPath(new URL('../temporal/fixtures/brokenWorkflows.ts', import.meta.url));
const tag = `${process.pid}-${Date.now().toString(36)}`;
/** Its worker runs a release that cannot run it: every workflow task fails. */
const failing = `UNANSWERED-FAILING-${tag}`;
/** On a queue no worker polls. */
const orphan = `UNANSWERED-ORPHAN-${tag}`;
const orphanQueue = `nobody-${tag}/dropflow-orders`;

let connection: Connection;
let client: Client;
let nativeConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, namespace: inject('temporalNamespace') });
  nativeConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const brokenQueue = `broken-${tag}/dropflow-orders`;
  worker = await Worker.create({
    connection: nativeConnection,
    namespace: inject('temporalNamespace'),
    taskQueue: brokenQueue,
    workflowBundle: await bundleWorkflowCode({ workflowsPath: BROKEN, logger: quiet }),
  });
  running = worker.run();
  const broken = await client.workflow.start(ORDER_WORKFLOW, {
    workflowId: orderWorkflowId(failing),
    taskQueue: brokenQueue,
    args: [{}],
  });
  await client.workflow.start(ORDER_WORKFLOW, {
    workflowId: orderWorkflowId(orphan),
    taskQueue: orphanQueue,
    args: [{}],
  });
  await eventually(
    'the workflow task of the failing order to fail',
    async () => (await broken.describe()).raw.pendingWorkflowTask?.attempt ?? 0,
    (attempt) => attempt >= 2,
  );
});

afterAll(async () => {
  worker.shutdown();
  await running;
  await nativeConnection.close();
  await connection.close();
});

function dropflow(args: string[]) {
  return runDropflow(args, {
    env: {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      ANSWER_TIMEOUT_SECONDS: '3',
    },
  });
}

function errorOf(stdout: string): { message: string; code?: string } {
  const doc = JSON.parse(stdout) as { error: { message: string; code?: string } };
  expect(Object.keys(doc)).toEqual(['error']);
  return doc.error;
}

describe('an order whose workflow does not answer', () => {
  it('status --json: NO_ANSWER, its workflow task failing', async () => {
    const { code, stdout, stderr } = await dropflow(['status', failing, '--json']);
    expect(code).toBe(1);
    expect(stderr).toBe('');
    const error = errorOf(stdout);
    expect(error.code).toBe('NO_ANSWER');
    expect(error.message).toMatch(
      new RegExp(
        `^no answer from order ${failing} to the status query: its workflow task has failed \\d+ times? in a row`,
      ),
    );
  });

  it('status: the reason on stderr when no worker polls its queue', async () => {
    const { code, stdout, stderr } = await dropflow(['status', orphan]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`no worker polls its task queue ${orphanQueue}`);
  });

  it('cancel gives up when no worker takes it, and says it may still happen', async () => {
    const { code, stdout } = await dropflow(['cancel', orphan, '--reason', 'test', '--json']);
    expect(code).toBe(1);
    const error = errorOf(stdout);
    expect(error.code).toBe('NO_ANSWER');
    expect(error.message).toContain(`no worker polls its task queue ${orphanQueue}`);
    expect(error.message).toContain('may still be carried out');
  });

  it('cancel of an order whose workflow task fails names that', async () => {
    const { code, stdout } = await dropflow(['cancel', failing, '--reason', 'test', '--json']);
    expect(code).toBe(1);
    const error = errorOf(stdout);
    expect(error.code).toBe('NO_ANSWER');
    expect(error.message).toMatch(/its workflow task has failed \d+ times? in a row/);
  });
});
