/**
 * A supplier-queue worker that stops lets its open polls be answered first (temporal/pollDrain.ts):
 * against the real dev server, a worker joins a busy rate-limited queue and stops again and again
 * while a steady worker serves the queue, and no task is lost (without the drain, SDK 1.24 on
 * server 1.32 lost 1 to 9 of 1,200 tasks in 30 such stops). A worker of an idle queue stops at once.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { expect, inject, it } from 'vitest';

import { DrainingActivitySlots, drainingTuner } from '../../src/temporal/pollDrain.js';
import { eventually } from '../support/eventually.js';
import { useFixtureWorkflows } from '../support/fixtureWorkflows.js';
import { finish } from './fixtures/steadyCalls.js';

const fx = useFixtureWorkflows(new URL('./fixtures/steadyCalls.ts', import.meta.url));
const run = `${process.pid}-${Date.now().toString(36)}`;
/** The queue's rate: a rate-limited queue is where the server hands tasks to closing polls. */
const PER_SECOND = 30;

const call = async (): Promise<void> => {
  await new Promise((resolve) => setTimeout(resolve, 5));
};

/** The queue's steady worker: its workflows and their calls. */
function steadyWorker(taskQueue: string): Promise<Worker> {
  return Worker.create({
    connection: fx.connection,
    namespace: fx.namespace,
    taskQueue,
    workflowBundle: fx.workflowBundle,
    activities: { call },
    maxTaskQueueActivitiesPerSecond: PER_SECOND,
    shutdownGraceTime: '3s',
  });
}

/**
 * A worker of the queue's activities only, with slots that can stop polling: in a process of its
 * own as far as the SDK goes (its own connection), as a second `dropflow worker` is.
 */
async function drainingWorker(taskQueue: string) {
  const slots = new DrainingActivitySlots();
  let ran = 0;
  let ranSome = (): void => undefined;
  /** Resolves once this worker ran 3 calls of its own, as a worker leaving a busy fleet has. */
  const busy = new Promise<void>((resolve) => (ranSome = resolve));
  const own = await NativeConnection.connect({ address: inject('temporalAddress') });
  const w = await Worker.create({
    connection: own,
    namespace: fx.namespace,
    taskQueue,
    activities: {
      call: async () => {
        await call();
        if (++ran === 3) ranSome();
      },
    },
    maxTaskQueueActivitiesPerSecond: PER_SECOND,
    shutdownGraceTime: '3s',
    tuner: drainingTuner(slots),
  });
  const running = w.run();
  return {
    slots,
    busy,
    async stop() {
      w.shutdown();
      await running;
      await own.close();
    },
  };
}

it('a worker that stops while a rate-limited queue is busy loses none of its tasks', async () => {
  const taskQueue = `poll-drain-${run}`;
  const steady = await steadyWorker(taskQueue);
  const steadyRun = steady.run();
  const handles = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      fx.client.workflow.start('steadyCalls', {
        taskQueue,
        workflowId: `poll-drain-${run}-${i}`,
      }),
    ),
  );
  // 25 stops whose open polls were all answered. A stop may also find the queue quiet (a busy
  // machine that pauses the workflows' calls): that one stops without waiting, which is right for
  // a quiet queue, and the loop goes on until 25 came while tasks flowed.
  const wanted = 25;
  let drained = 0;
  for (let c = 0; c < 2 * wanted && drained < wanted; c++) {
    const leaving = await drainingWorker(taskQueue);
    await leaving.busy;
    if (await leaving.slots.stopPolling()) drained++;
    await leaving.stop();
  }
  // The calls flow until every stop is done; then the workflows end and count their timeouts.
  await Promise.all(handles.map((h) => h.signal(finish)));
  const timedOut = await Promise.all(handles.map((h) => h.result() as Promise<number>)).finally(
    async () => {
      steady.shutdown();
      await steadyRun;
    },
  );
  expect(timedOut.reduce((a, b) => a + b, 0)).toBe(0);
  expect(drained).toBe(wanted);
}, 240_000);

it('a worker of an idle queue stops polling at once', async () => {
  const taskQueue = `poll-drain-idle-${run}`;
  const w = await drainingWorker(taskQueue);
  await eventually(
    'the worker polls',
    () => Promise.resolve(w.slots.polling),
    (n) => n > 0,
  );
  // Nothing came lately: it does not wait for a task that is not coming (a wait for the bound
  // would outlast the test's timeout), and leaves its quiet polls to the shutdown.
  expect(await w.slots.stopPolling(10 * 60_000)).toBe(false);
  expect(w.slots.polling).toBeGreaterThan(0);
  await w.stop();
  expect(w.slots.polling).toBe(0);
});
