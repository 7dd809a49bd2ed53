/**
 * Many accounts on one supplier queue against the real dev server and sandbox (issue 17): every
 * supplier task carries its workflow's account as fairness key and its tier as weight; one
 * worker set serves every account of its directory, each with its own key; the server holds each
 * account to its tier; and an account the directory does not know stops its order for a person.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { activityAccount } from '../../src/accounts/activityAccount.js';
import {
  SUPPLIER_TIER_MEMO,
  UNKNOWN_ACCOUNT_FAILURE,
  type RateTier,
} from '../../src/accounts/contract.js';
import { SupplierAccount } from '../../src/temporal/searchAttributes.js';
import { taskQueues, type TaskQueues } from '../../src/temporal/taskQueues.js';
import { createWorkers, type WorkerSet } from '../../src/worker.js';
import { accountOf } from '../support/accounts.js';
import {
  staticAccountDirectory,
  type StaticAccountDirectory,
} from '../../src/accounts/staticDirectory.js';
import { reachStage, validOrder } from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/terms/checkoutSettings.js';
import { ORDER_WORKFLOW, resumeUpdate, Stage, statusQuery } from '../../src/order/contract.js';
import { eventually } from '../support/eventually.js';
import { useFixtureWorkflows } from '../support/fixtureWorkflows.js';
import {
  accountStats,
  newSandboxAccount,
  takenCalls,
  type TestAccount,
} from '../support/sandbox.js';
import type { balanceProbe } from './fixtures/accounts.js';

const fx = useFixtureWorkflows(new URL('./fixtures/accounts.ts', import.meta.url));
const run = `${process.pid}-${Date.now().toString(36)}`;

/** A worker of the queue set's orders queue only: it schedules, nobody runs supplier calls. */
async function ordersWorker(queues: TaskQueues): Promise<{ stop: () => Promise<void> }> {
  const worker = await Worker.create({
    connection: fx.connection,
    namespace: fx.namespace,
    taskQueue: queues.orders,
    workflowBundle: fx.workflowBundle,
  });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}

/** A probe run of `account` (none: a run started before accounts were data), as its starter sets it. */
function startProbe(
  queues: TaskQueues,
  id: string,
  account?: { id: string; tier?: number },
): Promise<WorkflowHandle<typeof balanceProbe>> {
  return fx.client.workflow.start<typeof balanceProbe>('balanceProbe', {
    taskQueue: queues.orders,
    workflowId: `${id}-${run}`,
    ...(account !== undefined && {
      typedSearchAttributes: [{ key: SupplierAccount, value: account.id }],
      ...(account.tier !== undefined && { memo: { [SUPPLIER_TIER_MEMO]: account.tier } }),
    }),
  });
}

async function scheduled(handle: WorkflowHandle): Promise<void> {
  await eventually(
    `${handle.workflowId} scheduled its activity`,
    async () => (await handle.describe()).raw.pendingActivities?.length ?? 0,
    (n) => n === 1,
  );
}

/** When the workflow's one activity started, from its history (an order of events, not a timing). */
async function startedAt(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  const started = (history.events ?? []).find((e) => e.activityTaskStartedEventAttributes != null);
  const t = started?.eventTime;
  if (t == null) throw new Error(`${handle.workflowId}: no activity started`);
  return Number(t.seconds) * 1_000 + Math.floor((t.nanos ?? 0) / 1e6);
}

it("a supplier task carries its workflow's account as fairness key and its tier as weight", async () => {
  const queues = taskQueues(`acct-info-${run}`);
  const orders = await ordersWorker(queues);
  const seen: { workflowId: string; account: string; weight: number | undefined }[] = [];
  const supplierWorker = await Worker.create({
    connection: fx.connection,
    namespace: fx.namespace,
    taskQueue: queues.supplier,
    activities: {
      getBalance() {
        const { workflowExecution, priority } = Context.current().info;
        if (workflowExecution === undefined) throw new Error('no workflow');
        const weight = priority?.fairnessWeight;
        seen.push({
          workflowId: workflowExecution.workflowId,
          account: activityAccount(),
          weight: weight === undefined || weight === 0 ? undefined : weight,
        });
        return Promise.resolve(1);
      },
    },
  });
  const running = supplierWorker.run();
  try {
    const probes = [
      await startProbe(queues, 'acct-a', { id: 'acct-a', tier: 4 }),
      await startProbe(queues, 'acct-b', { id: 'acct-b' }),
      await startProbe(queues, 'before-accounts'),
    ];
    await Promise.all(probes.map((p) => p.result()));
  } finally {
    supplierWorker.shutdown();
    await running;
    await orders.stop();
  }
  const byWorkflow = Object.fromEntries(seen.map((s) => [s.workflowId.replace(`-${run}`, ''), s]));
  expect(byWorkflow['acct-a']).toMatchObject({ account: 'acct-a', weight: 4 });
  // No tier in the memo: the server's default weight (1), the lowest tier.
  expect(byWorkflow['acct-b']).toMatchObject({ account: 'acct-b', weight: undefined });
  expect(byWorkflow['before-accounts']).toMatchObject({ account: 'default', weight: undefined });
});

describe('two accounts on one worker set', () => {
  const TIER_A: RateTier = 1;
  const TIER_B: RateTier = 2;
  let home: TestAccount;
  let a: TestAccount;
  let b: TestAccount;
  let directory: StaticAccountDirectory;
  let queues: TaskQueues;
  let workers: WorkerSet | undefined;
  let running: Promise<void> | undefined;

  beforeAll(async () => {
    [home, a, b] = await Promise.all([
      newSandboxAccount(100),
      newSandboxAccount(111, TIER_A),
      newSandboxAccount(222, TIER_B),
    ]);
    directory = staticAccountDirectory([
      accountOf('acct-a', a, TIER_A),
      accountOf('acct-b', b, TIER_B),
    ]);
    queues = taskQueues(`acct-fleet-${run}`);
    await startWorkers();
  });

  afterAll(async () => {
    await stopWorkers();
    await Promise.all([home, a, b].map((x) => x.client.close()));
  });

  async function stopWorkers(): Promise<void> {
    await workers?.shutdown();
    await running;
    workers = undefined;
  }

  async function startWorkers(): Promise<void> {
    workers = await createWorkers({
      address: inject('temporalAddress'),
      namespace: fx.namespace,
      queues,
      supplier: home.client,
      accounts: directory,
      workflowBundle: fx.workflowBundle,
      // Each order carts and pays alone: the checkout coordinator per account is not this test's.
      checkout: { ...DEFAULT_CHECKOUT_SETTINGS, batching: false },
    });
    running = workers.run();
  }

  it("the server's budget: each account's key limited to 1/s per tier unit, the queue to the sum", async () => {
    const config = await eventually(
      'the supplier queue config',
      async () =>
        (
          await fx.client.workflowService.describeTaskQueue({
            namespace: fx.namespace,
            taskQueue: { name: queues.supplier },
            taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
            reportConfig: true,
          })
        ).config,
      (c) => c?.fairnessKeysRateLimitDefault?.rateLimit != null,
    );
    expect(config?.fairnessKeysRateLimitDefault?.rateLimit?.requestsPerSecond).toBe(1);
    // default (1) + acct-a (1) + acct-b (2)
    expect(config?.queueRateLimit?.rateLimit?.requestsPerSecond).toBe(4);
  });

  it("each account's calls use its own key; a burst of one account does not hold back the other", async () => {
    // A backlog: eight calls of acct-a scheduled first, then two of acct-b, while no worker runs.
    await stopWorkers();
    const orders = await ordersWorker(queues);
    const burst: WorkflowHandle<typeof balanceProbe>[] = [];
    for (let i = 0; i < 8; i++) {
      burst.push(await startProbe(queues, `burst-a-${i}`, { id: 'acct-a', tier: TIER_A }));
    }
    for (const h of burst) await scheduled(h);
    const other: WorkflowHandle<typeof balanceProbe>[] = [];
    for (let i = 0; i < 2; i++) {
      other.push(await startProbe(queues, `other-b-${i}`, { id: 'acct-b', tier: TIER_B }));
    }
    for (const h of other) await scheduled(h);
    await orders.stop();

    await startWorkers();
    // Each account's balance: each call went with the account's own key.
    expect(await Promise.all(burst.map((h) => h.result()))).toEqual(Array(8).fill(111));
    expect(await Promise.all(other.map((h) => h.result()))).toEqual([222, 222]);
    const statsA = await accountStats(a.openId);
    const statsB = await accountStats(b.openId);
    const statsHome = await accountStats(home.openId);
    const answered = (s: typeof statsA) => takenCalls(s, 'shopping/pay/getBalance');
    expect(answered(statsA)).toBe(8);
    expect(answered(statsB)).toBe(2);
    expect(statsHome.calls['shopping/pay/getBalance']).toBeUndefined();

    // Scheduled last, acct-b's calls ran before acct-a's backlog was through: they took turns.
    const startsA = (await Promise.all(burst.map(startedAt))).sort((x, y) => x - y);
    const startsB = await Promise.all(other.map(startedAt));
    expect(Math.max(...startsB)).toBeLessThan(startsA[4]!);
  });

  it('an order of an account the workers do not know stops for a person, naming it; once added, resume goes on', async () => {
    const c = await newSandboxAccount(1_000);
    try {
      const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
      const handle = await fx.client.workflow.start(ORDER_WORKFLOW, {
        workflowId: `order:acct-c:${input.order.orderNumber}`,
        taskQueue: queues.orders,
        args: [input],
        typedSearchAttributes: [{ key: SupplierAccount, value: 'acct-c' }],
        memo: { [SUPPLIER_TIER_MEMO]: 1 },
      });
      const stopped = await reachStage(handle, Stage.NEEDS_ATTENTION);
      expect(stopped.error?.message).toContain('no supplier account "acct-c"');
      expect(stopped.error?.message).toContain('dropflow account add acct-c');
      // Never sent, so never in doubt: no look-up first.
      expect(stopped.error?.message).not.toContain('looking it up');
      // Nothing was sent for it, with any key.
      expect((await accountStats(c.openId)).calls).toEqual({});
      expect((await accountStats(home.openId)).ordersCreated).toBe(0);

      directory.set(accountOf('acct-c', c, 1));
      const resumed = await handle.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
      expect(resumed.accepted).toBe(true);
      // Created at the supplier with the account's own key (what follows is the checkout's).
      const created = await eventually(
        `${handle.workflowId} created`,
        () => handle.query(statusQuery),
        (status) => status.svcOrderId !== undefined,
      );
      expect(created.error?.message ?? '').not.toContain('no supplier account');
      expect((await accountStats(c.openId)).ordersCreated).toBe(1);
      expect((await accountStats(home.openId)).ordersCreated).toBe(0);
    } finally {
      await c.client.close();
    }
  });

  it("the directory's changes reach the server's budget and the workers: a new tier, a removed account", async () => {
    const queueLimit = async () => {
      const { config } = await fx.client.workflowService.describeTaskQueue({
        namespace: fx.namespace,
        taskQueue: { name: queues.supplier },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        reportConfig: true,
      });
      return config?.queueRateLimit?.rateLimit?.requestsPerSecond;
    };
    directory.set(accountOf('acct-b', b, 4));
    const expected = 1 + directory.list().reduce((sum, x) => sum + x.tier, 0);
    await eventually('the queue limit follows the new tier', queueLimit, (n) => n === expected);

    directory.remove('acct-a');
    const probe = await startProbe(queues, 'removed-a', { id: 'acct-a', tier: TIER_A });
    const failed = await probe.result().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    const cause = (failed as WorkflowFailedError).cause?.cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe(UNKNOWN_ACCOUNT_FAILURE);
    expect((cause as ApplicationFailure).message).toContain('no supplier account "acct-a"');
  });
});
