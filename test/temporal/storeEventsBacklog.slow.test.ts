/**
 * The store-events backlog gauge: counts the open workflows of one orders queue whose
 * StoreEventsBehind is true — not those of another queue, not those that caught up, not closed
 * ones — and exports the count as dropflow_store_events_behind through the runtime's Prometheus
 * metrics; a failed count is tried again at the next tick.
 */

import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

import { StoreEventsBehind } from '../../src/temporal/searchAttributes.js';
import { taskQueues } from '../../src/temporal/taskQueues.js';
import { createWorkers } from '../../src/worker.js';
import { newSandboxAccount } from '../support/sandbox.js';
import { installRuntimeLogger } from '../../src/temporal/runtimeLogger.js';
import {
  behindQuery,
  countBehind,
  startStoreEventsBacklog,
} from '../../src/storeEvents/backlogGauge.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/ports.js';

const run = `${process.pid}-${Date.now().toString(36)}`;
const queue = `backlog-${run}/orders`;
const otherQueue = `backlog-other-${run}/orders`;
let metricsPort: number;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  metricsPort = await freePort();
  // Before anything touches the runtime: this process serves its metrics like `dropflow worker`.
  expect(installRuntimeLogger(undefined, { metricsAddress: `127.0.0.1:${metricsPort}` })).toBe(
    true,
  );
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, namespace: inject('temporalNamespace') });
});
afterAll(() => connection.close());

/** A workflow nobody runs: it stays open with the search attribute it was started with. */
async function openWorkflow(taskQueue: string, behind: boolean, tag: string) {
  return client.workflow.start('fulfillOrder', {
    workflowId: `backlog-${tag}-${run}`,
    taskQueue,
    typedSearchAttributes: [{ key: StoreEventsBehind, value: behind }],
  });
}

async function gaugeValue(of = queue): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('dropflow_store_events_behind{') && l.includes(`"${of}"`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

it('counts the open workflows of its queue whose events wait, and exports the count', async () => {
  expect(behindQuery(queue)).toBe(
    `StoreEventsBehind = true AND ExecutionStatus = 'Running' AND TaskQueue = '${queue}'`,
  );
  const behind = await openWorkflow(queue, true, 'behind');
  const closed = await openWorkflow(queue, true, 'closed');
  await closed.terminate('closed workflows do not count');
  await openWorkflow(queue, false, 'caught-up');
  const elsewhere = await openWorkflow(otherQueue, true, 'elsewhere');

  await eventually(
    'visibility to list the workflows',
    () => countBehind(client, otherQueue),
    (n) => n === 1,
  );
  await eventually(
    'the count of the queue',
    () => countBehind(client, queue),
    (n) => n === 1,
  );

  const backlog = startStoreEventsBacklog(client, queue, {
    everyMs: 200,
    log: { debug: () => {} },
  });
  try {
    await eventually('the gauge at 1', gaugeValue, (v) => v === 1);
    await behind.terminate('caught up');
    await eventually('the gauge back at 0', gaugeValue, (v) => v === 0);
  } finally {
    await backlog.stop();
    await elsewhere.terminate('test over');
  }
});

it('logs a failed count at debug and counts again at the next tick', async () => {
  const failures: unknown[] = [];
  let calls = 0;
  let secondCall: () => void = () => undefined;
  const counted = new Promise<void>((resolve) => (secondCall = resolve));
  const failing = {
    withAbortSignal: (_signal: AbortSignal, fn: () => Promise<unknown>) => fn(),
    workflow: {
      count: () => {
        calls++;
        if (calls === 2) secondCall();
        return Promise.reject(new Error('visibility unavailable'));
      },
    },
  } as unknown as Client;
  const backlog = startStoreEventsBacklog(failing, queue, {
    everyMs: 10,
    log: { debug: (obj: unknown) => failures.push(obj) },
  });
  await counted;
  await backlog.stop();
  expect(calls).toBeGreaterThanOrEqual(2);
  expect(failures.length).toBeGreaterThanOrEqual(1);
  expect(JSON.stringify(failures[0])).toContain(queue);
});

it("runs with the account's workers: counted from their start until they stop", async () => {
  const queues = taskQueues(`backlog-workers-${run}`);
  // Its type is no workflow's: the workers fail its tasks and it stays open, behind.
  const behind = await client.workflow.start('notAWorkflow', {
    workflowId: `backlog-workers-${run}`,
    taskQueue: queues.orders,
    typedSearchAttributes: [{ key: StoreEventsBehind, value: true }],
  });
  try {
    await eventually(
      'visibility to list it',
      () => countBehind(client, queues.orders),
      (n) => n === 1,
    );
    const account = await newSandboxAccount();
    const workers = await createWorkers({
      address: inject('temporalAddress'),
      namespace: inject('temporalNamespace'),
      queues,
      supplier: account.client,
    });
    const running = workers.run();
    try {
      await eventually(
        "the workers' gauge at 1",
        () => gaugeValue(queues.orders),
        (v) => v === 1,
      );
    } finally {
      await workers.shutdown();
      await running;
      await account.client.close();
    }
  } finally {
    await behind.terminate('test over');
  }
});
