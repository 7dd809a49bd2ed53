/**
 * The account's checkout coordinator against a real server: what a cancel may take back, the
 * funds list, siblings of a shipment, where it holds an order, and how it stays within
 * Temporal's limits (signals per run, pending outgoing signals). Most tests run a coordinator of
 * their own and talk to it as orders would; "mailbox" workflows (idle coordinators) stand in for
 * orders, so what they were told is read from their history.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { Stage } from '../../src/order/contract.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import {
  CHECKOUT_WORKFLOW,
  checkoutFundsSignal,
  checkoutMemberQuery,
  checkoutReadySignal,
  checkoutSettingsSignal,
  checkoutStatusQuery,
  checkoutWithdrawSignal,
  checkoutWorkflowId,
  type CheckoutOutcome,
} from '../../src/checkout/contract.js';
import {
  DEFAULT_CHECKOUT_SETTINGS,
  type CheckoutSettings,
} from '../../src/terms/checkoutSettings.js';
import type { CheckoutInput } from '../../src/checkout/coordinator.js';
import { eventually } from '../support/eventually.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { injectFault, setBalance as setAccountBalance } from '../support/sandbox.js';
import { orderNumber, usOrder } from '../supplier/orderHelpers.js';

/** Long enough that nothing closes a batch or reads the balance by itself in a test. */
const NEVER = 600_000;
const QUIET: CheckoutSettings = {
  ...DEFAULT_CHECKOUT_SETTINGS,
  quietMs: NEVER,
  maxWaitMs: NEVER,
  maxBatch: 1_000,
  fundsCheckMs: NEVER,
};

const h = useOrderHarness('coordinator', 10_000, { checkout: { ...QUIET, maxBatch: 2 } });

let n = 0;
const uniqueId = (what: string) => `${what}-${process.pid}-${Date.now().toString(36)}-${++n}`;

async function coordinator(input: CheckoutInput = {}): Promise<WorkflowHandle> {
  return h.client.workflow.start(CHECKOUT_WORKFLOW, {
    workflowId: uniqueId('coordinator'),
    taskQueue: h.queues.orders,
    args: [{ settings: QUIET, ...input }],
  });
}

/** A workflow that stands in for an order: it records what it is told. */
async function mailbox(): Promise<string> {
  return (await coordinator()).workflowId;
}

async function toldTo(workflowId: string): Promise<CheckoutOutcome[]> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const signalled = e.workflowExecutionSignaledEventAttributes;
    if (signalled?.signalName !== 'checkoutOutcome') return [];
    const data = signalled.input?.payloads?.[0]?.data;
    return data == null ? [] : [JSON.parse(Buffer.from(data).toString()) as CheckoutOutcome];
  });
}

const told = (workflowId: string, kind: CheckoutOutcome['kind']) =>
  eventually(
    `${workflowId} told ${kind}`,
    () => toldTo(workflowId),
    (outcomes) => outcomes.some((o) => o.kind === kind),
    60_000,
  );

const ready = (workflowId: string, amount = 10) => ({
  workflowId,
  svcOrderId: `SVC-${workflowId}`,
  amount,
  lagMs: 1_000,
  readyAt: new Date().toISOString(),
});

const setBalance = (amount: number) => setAccountBalance(h.account.openId, amount);

describe('the checkout coordinator', () => {
  it('lets a cancelled order go only while no batch call may have acted for it; otherwise refuses, with why', async () => {
    const c = await coordinator();
    const [queued, stranger] = await Promise.all([mailbox(), mailbox()]);
    await c.signal(checkoutReadySignal, ready(queued));
    expect(await c.query(checkoutMemberQuery, queued)).toEqual({ state: 'queued' });
    // A re-join of an order it holds changes nothing.
    await c.signal(checkoutReadySignal, ready(queued));
    expect((await c.query(checkoutStatusQuery)).waiting).toBe(1);

    await c.signal(checkoutWithdrawSignal, { workflowId: queued });
    expect((await told(queued, 'withdrawn')).map((o) => o.kind)).toEqual(['withdrawn']);
    expect(await c.query(checkoutMemberQuery, queued)).toEqual({ state: 'unknown' });

    // Not held (its outcome may be on its way): never `withdrawn`, which could cross a `paid`.
    await c.signal(checkoutWithdrawSignal, { workflowId: stranger });
    const answer = await told(stranger, 'withdrawRefused');
    expect(answer).toEqual([
      { kind: 'withdrawRefused', why: expect.stringMatching(/does not hold it/) as unknown },
    ]);
  });

  it('a shipment refused for funds: each order hears its siblings, and the shipment leaves the funds list once its orders stop waiting', async () => {
    await setBalance(0);
    const flowB = (tag: string) =>
      validOrder({ ...usOrder({ orderNumber: orderNumber(tag) }), fulfillment: { flow: 'B' } });
    const [a, b] = await Promise.all([
      startOrder(h, flowB('sib-a')),
      startOrder(h, flowB('sib-b')),
    ]);
    await Promise.all([reachStage(a, Stage.AWAITING_FUNDS), reachStage(b, Stage.AWAITING_FUNDS)]);
    const short = await told(a.workflowId, 'awaitingFunds');
    expect(short.find((o) => o.kind === 'awaitingFunds')).toMatchObject({
      shipmentOrderId: expect.any(String) as unknown,
      siblings: [b.workflowId],
    });
    const account = h.client.workflow.getHandle(checkoutWorkflowId(queuePrefix(h.queues)));
    expect(await account.query(checkoutMemberQuery, a.workflowId)).toEqual({
      state: 'awaitingFunds',
    });
    // A cancel of a confirmed order is refused: the supplier pays the shipment only whole.
    await account.signal(checkoutWithdrawSignal, { workflowId: a.workflowId });
    await told(a.workflowId, 'withdrawRefused');

    // Both go on by themselves (as when one pays the shipment and tells the other).
    for (const o of [a, b]) {
      await account.signal(checkoutFundsSignal, { kind: 'stopWaiting', workflowId: o.workflowId });
    }
    await eventually(
      'the funds list empty',
      () => account.query(checkoutStatusQuery),
      (v) => v.awaitingFunds.length === 0,
    );
    await setBalance(10_000);
  });

  it('orders paying one shipment alone wait for its amount once and go on together', async () => {
    await setBalance(100);
    const c = await coordinator();
    const [one, two, small] = await Promise.all([mailbox(), mailbox(), mailbox()]);
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const workflowId of [one, two]) {
      await c.signal(checkoutFundsSignal, {
        kind: 'wait',
        workflowId,
        amount: 80,
        since,
        shipmentOrderId: 'S-shared',
      });
    }
    await c.signal(checkoutFundsSignal, {
      kind: 'wait',
      workflowId: small,
      amount: 15,
      since: new Date().toISOString(),
    });
    expect((await c.query(checkoutStatusQuery)).awaitingFunds).toHaveLength(2);
    await c.signal(checkoutFundsSignal, { kind: 'toppedUp' });
    await Promise.all([one, two, small].map((id) => told(id, 'fundsAvailable')));
    await setBalance(10_000);
  });

  it('continues as new once a run received its budget of signals, carrying what waits and the top-up news', async () => {
    const c = await coordinator({ limits: { signalsPerRun: 20 } });
    const first = (await c.describe()).runId;
    const waiter = await mailbox();
    await c.signal(checkoutFundsSignal, {
      kind: 'wait',
      workflowId: waiter,
      amount: 1,
      since: new Date().toISOString(),
    });
    await c.signal(checkoutReadySignal, ready(`ghost-0-${c.workflowId}`));
    // The first order woke the loop, which went back to sleep on its (long) batch timer: the
    // orders that join a queue already waiting do not wake it, so the budget alone must.
    await eventually(
      'the first order queued',
      () => c.query(checkoutStatusQuery),
      (v) => v.waiting === 1,
    );
    for (let i = 1; i < 30; i++)
      await c.signal(checkoutReadySignal, ready(`ghost-${i}-${c.workflowId}`));
    await eventually(
      'a new run',
      () => c.describe(),
      (d) => d.runId !== first,
    );
    const latest = h.client.workflow.getHandle(c.workflowId);
    await eventually(
      'the queue carried over',
      () => latest.query(checkoutStatusQuery),
      (v) => v.waiting === 30 && v.awaitingFunds.length === 1,
    );
    await latest.signal(checkoutFundsSignal, { kind: 'toppedUp' });
    await told(waiter, 'fundsAvailable');
  });

  it('continues as new once a run holds its budget of history events, though no signal wakes it', async () => {
    const c = await coordinator({ limits: { historyPerRun: 40 } });
    const first = (await c.describe()).runId;
    await c.signal(checkoutReadySignal, ready(`ghost-${c.workflowId}`));
    await eventually(
      'the order queued',
      () => c.query(checkoutStatusQuery),
      (v) => v.waiting === 1,
    );
    // Orders that wait for funds do not wake the loop asleep on its batch timer.
    const since = new Date().toISOString();
    for (let i = 0; i < 40; i++) {
      await c.signal(checkoutFundsSignal, {
        kind: 'wait',
        workflowId: `gone-${i}-${c.workflowId}`,
        amount: 1,
        since,
      });
    }
    await eventually(
      'a new run',
      () => c.describe(),
      (d) => d.runId !== first,
    );
    await eventually(
      'what waits carried over',
      () => h.client.workflow.getHandle(c.workflowId).query(checkoutStatusQuery),
      (v) => v.waiting === 1 && v.awaitingFunds.length === 40,
    );
  });

  it('a run that reached its signal budget lets the batch under way finish, tells its order, then continues as new', async () => {
    const c = await coordinator({
      settings: { ...QUIET, maxBatch: 1, quietMs: 0 },
      limits: { signalsPerRun: 5 },
    });
    const first = (await c.describe()).runId;
    // The batch's cart answers slowly: the budget is reached while it is under way.
    await injectFault({
      openId: h.account.openId,
      path: 'shopping/order/addCart',
      kind: 'latency',
      latencyMs: 3_000,
    });
    const inBatch = await mailbox();
    await c.signal(checkoutReadySignal, ready(inBatch));
    await eventually(
      'its batch under way',
      () => c.query(checkoutStatusQuery),
      (v) => v.batches.length === 1,
    );
    for (let i = 0; i < 6; i++) {
      await c.signal(checkoutSettingsSignal, { ...QUIET, maxBatch: 1_000 });
    }
    await eventually(
      'a new run',
      () => c.describe(),
      (d) => d.runId !== first,
    );
    // Told in the old run, before it ended: a fake order comes back from the cart, one way or another.
    expect((await toldTo(inBatch)).length).toBeGreaterThan(0);
  });

  it('releases a long funds list through tell activities of at most outcomesInFlight orders, no signal of its own', async () => {
    const WAITERS = 260;
    const c = await coordinator();
    const since = new Date().toISOString();
    for (let i = 0; i < WAITERS; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          c.signal(checkoutFundsSignal, {
            kind: 'wait',
            // Workflows that do not exist: each signal fails, which the coordinator survives.
            workflowId: `gone-${i + j}-${c.workflowId}`,
            amount: 1,
            since,
          }),
        ),
      );
    }
    await c.signal(checkoutFundsSignal, { kind: 'toppedUp' });
    // Workflows that do not exist: each call answers them not found, which the coordinator logs.
    const events = await everyWaiterTold(c, WAITERS);
    expect(tellSizes(events).sort((a, b) => b - a)).toEqual([200, WAITERS - 200]);
    expect(events.some((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes)).toBe(
      false,
    );
    expect((await c.query(checkoutStatusQuery)).awaitingFunds).toEqual([]);
  });

  it('takes its budgets from its settings: outcomes at once, and the signals after which it continues as new, carrying them', async () => {
    const settings: CheckoutSettings = { ...QUIET, signalsPerRun: 40, outcomesInFlight: 3 };
    const c = await coordinator({ settings });
    const first = (await c.describe()).runId;
    const since = new Date().toISOString();
    const WAITERS = 20;
    for (let i = 0; i < WAITERS; i++) {
      await c.signal(checkoutFundsSignal, {
        kind: 'wait',
        workflowId: `gone-${i}-${c.workflowId}`,
        amount: 1,
        since,
      });
    }
    await c.signal(checkoutFundsSignal, { kind: 'toppedUp' });
    const events = await everyWaiterTold(c, WAITERS);
    expect(tellSizes(events)).toEqual([3, 3, 3, 3, 3, 3, 2]);

    for (let i = 0; i < 20; i++)
      await c.signal(checkoutReadySignal, ready(`ghost-${i}-${c.workflowId}`));
    await eventually(
      'a new run',
      () => c.describe(),
      (d) => d.runId !== first,
    );
    const next = await eventually(
      'the queue carried over',
      () => h.client.workflow.getHandle(c.workflowId).query(checkoutStatusQuery),
      (v) => v.waiting === 20,
    );
    expect(next.settings).toMatchObject({ signalsPerRun: 40, outcomesInFlight: 3 });
  });

  it('shows which orders wait on a batch that lags past its bound, and when no batch can start', async () => {
    const c = await coordinator({
      settings: { ...QUIET, maxBatch: 1, quietMs: 0 },
      limits: { lagBoundMs: 1_000 },
    });
    // The daily quota is used up: each batch's cart waits until it resets.
    await injectFault({
      openId: h.account.openId,
      path: 'shopping/order/addCart',
      kind: 'quota',
      times: 4,
    });
    const ids = Array.from({ length: 4 }, (_, i) => `held-${i}-${c.workflowId}`);
    for (const id of ids) await c.signal(checkoutReadySignal, ready(id));
    const view = await eventually(
      'three lagging batches and a fourth waiting',
      () => c.query(checkoutStatusQuery),
      (v) => v.batches.filter((b) => b.lagging).length === 3 && v.waiting === 1,
      60_000,
    );
    expect(view.batchesFull).toBe(true);
    expect(view.batches.flatMap((b) => b.orderIds ?? []).sort()).toEqual(ids.slice(0, 3).sort());
    expect(view.batches[0]).toMatchObject({
      step: 'addCart',
      waitingFor: expect.stringMatching(/quota|slow down|trying again/) as unknown,
    });
  });
});

const payload = (p: { data?: Uint8Array | null } | undefined): unknown =>
  p?.data == null || p.data.length === 0 ? undefined : JSON.parse(Buffer.from(p.data).toString());

/** The orders a tell activity's answer found not running (0 for any other activity's). */
const notFoundIn = (p: { data?: Uint8Array | null }): number => {
  const answer = payload(p) as { notFound?: unknown } | null | undefined;
  return Array.isArray(answer?.notFound) ? answer.notFound.length : 0;
};

/** How many orders each call of the coordinator's tell activity carried. */
function tellSizes(events: readonly HistoryEvent[]): number[] {
  return events.flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    if (a?.activityType?.name !== 'tellOutcomes') return [];
    return [(payload(a.input?.payloads?.[1]) as unknown[]).length];
  });
}

/** Once the tell activity's calls answered `waiters` orders not found (none of them runs). */
const everyWaiterTold = (c: WorkflowHandle, waiters: number) =>
  eventually(
    'every waiter told',
    async () => (await c.fetchHistory()).events ?? [],
    (es) =>
      es
        .flatMap((e) => e.activityTaskCompletedEventAttributes?.result?.payloads ?? [])
        .reduce((sum, p) => sum + notFoundIn(p), 0) === waiters,
    120_000,
    1_000,
  );

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
