/**
 * One phase of `dropflow bench orders`: a fresh account, gateway and worker with checkout batching
 * off or on; N flow-B orders submitted at once (or, with a store, placed at once in the store
 * double, whose webhooks bring them); the supplier's counters snapshotted when the last order is
 * paid and when every workflow completed; then the phase's Temporal actions, latencies, the
 * worker's peak memory and, with a store, the store's figures (./storeFigures.ts).
 */
import { setMaxListeners } from 'node:events';

import { Stage, orderWorkflowId, type OrderStatus } from 'dropflow/client';
import type { SandboxStats } from '../sandbox/state.js';
import { FulfillmentStage } from 'dropflow/temporal';
import { countPhaseActions, type PhaseActions } from './phaseActions.js';
import { benchOrders } from './benchOrders.js';
import { boundOrdersPerHour } from './bounds.js';
import {
  checkoutEnv,
  maxBatchSize,
  type Batching,
  type CheckoutTuning,
} from './checkoutSettings.js';
import type { BenchStack, PhaseStack } from './ordersStack.js';
import { ProgressBar } from './progress.js';
import { peakRssMb } from './rss.js';
import { quantile, toCreatedMs, toCreatedSummary } from '../localStack/toCreated.js';
import {
  shippedAtByTrackNumber,
  storeFigures,
  type BenchStorePlatform,
  type StoreFigures,
} from './storeFigures.js';
import { callsBetween, statsOf, supplierCounts, type CallCount } from './supplierCalls.js';

export interface PhaseOptions {
  batching: Batching;
  orders: number;
  ratePerSecond: number;
  batchRatePerSecond: number;
  trackingEverySeconds: number;
  tuning: CheckoutTuning;
  /** Give up waiting for the orders after this long from the first submit. */
  deadlineMs: number;
  /** Unique per run: names the phase's queues and orders. */
  runId: string;
  /** Orders arrive as this store's webhooks, and their tracking goes back to it. */
  store?: BenchStorePlatform;
}

export interface PhaseResult {
  batching: Batching;
  orders: number;
  /** Orders whose workflow reached PAID / COMPLETED. */
  paid: number;
  completed: number;
  ratePerSecond: number;
  /** The largest batch the bound assumes (null: unbatched bound). */
  batchSize: number | null;
  /** Supplier calls per order until the supplier had every order paid. */
  callsPerOrder: number | null;
  /** … and until every order workflow completed. */
  callsPerOrderToCompleted: number | null;
  /** Calls by path until every order was paid (totals, not per order). */
  callsToPaidByPath: Record<string, number>;
  rateLimitedToPaid: number | null;
  /** Orders per payment the supplier accepted until every order was paid: the batches' mean size. */
  ordersPerPayment: number | null;
  /** N ÷ (last PAID − first submit). */
  ordersPerHour: number | null;
  boundOrdersPerHour: number;
  fractionOfBound: number | null;
  /** Temporal Cloud actions per order, every workflow of the phase, counted at COMPLETED. */
  actionsPerOrder: number;
  actionsByKind: Record<string, number>;
  actionsByWorkflowType: Record<string, number>;
  workflowExecutions: number;
  p50ToPaidMs: number | null;
  p95ToPaidMs: number | null;
  /** Submit → CREATED (the supplier has the order), over the orders that got there. */
  p50ToCreatedMs: number | null;
  p99ToCreatedMs: number | null;
  /** Peak resident memory of the worker process (VmHWM). */
  workerRssMb: number | null;
  /** First submit to the last order's completion (or the deadline). */
  durationMs: number;
  /** With a store: what its double counted, and supplier tracking → store fulfillment. */
  store?: StoreFigures;
  notes: string[];
}

/** How often the supplier's record is read for the progress bar and the PAID snapshot. */
const WATCH_EVERY_MS = 200;

interface Outcome {
  status?: OrderStatus;
  failed?: string;
}

export async function runPhase(stack: BenchStack, o: PhaseOptions): Promise<PhaseResult> {
  const prefix = `bench-${o.runId}-${o.batching}`;
  const notes: string[] = [];
  // Before the worker starts: whatever it starts belongs to the phase.
  const phaseStart = new Date();
  const phase = await stack.startPhase({
    prefix,
    ratePerSecond: o.ratePerSecond,
    batchRatePerSecond: o.batchRatePerSecond,
    trackingEverySeconds: o.trackingEverySeconds,
    workerEnv: checkoutEnv(o.batching, o.tuning),
    ...(o.store !== undefined && { store: o.store }),
  });
  try {
    const sandbox = stack.sandbox.sandbox;
    const before = statsOf(sandbox, phase.openId);
    let atPaid: SandboxStats | undefined;
    const outcomes = new Map<string, Outcome>();
    const progress = new ProgressBar(`batching ${o.batching}`, o.orders);
    let completed = 0;
    const counts = () => ({ ...supplierCounts(sandbox, phase.openId), completed });

    const abort = new AbortController();
    // Every order's result long-polls under this one signal, each poll adding a listener.
    setMaxListeners(0, abort.signal);
    const watcher = setInterval(() => {
      const now = counts();
      if (atPaid === undefined && now.paid >= o.orders) atPaid = statsOf(sandbox, phase.openId);
      progress.update(now);
    }, WATCH_EVERY_MS);
    const submittedAt = new Map<string, number>();
    const firstSubmit = Date.now();
    let lastOutcomeAt = firstSubmit;
    let orders: string[] = [];
    try {
      orders = await submitAll(phase, o.orders, prefix, submittedAt);
      const finished = orders.map((orderNumber) =>
        awaitOutcome(stack, orderNumber, abort.signal).then((outcome) => {
          outcomes.set(orderNumber, outcome);
          if (outcome.status?.stage === Stage.COMPLETED) completed += 1;
          lastOutcomeAt = Date.now();
        }),
      );
      await untilDone(Promise.all(finished), firstSubmit + o.deadlineMs);
    } finally {
      clearInterval(watcher);
      abort.abort();
    }
    const endedAt = Date.now();
    const final = counts();
    atPaid ??= final.paid >= o.orders ? statsOf(sandbox, phase.openId) : undefined;
    const atEnd = statsOf(sandbox, phase.openId);
    progress.done(final);

    const workerRssMb = (await peakRssMb(phase.worker.pid)) ?? null;
    if (workerRssMb === null) notes.push('worker memory: not available (no /proc)');
    const unfinished = orders.filter((x) => outcomes.get(x)?.status === undefined);
    if (unfinished.length > 0) notes.push(await describeUnfinished(stack, unfinished, outcomes));
    const actions = await countPhaseActions(stack.client, phaseStart);
    const store =
      phase.store === undefined
        ? undefined
        : storeFigures(
            phase.store.platform,
            phase.store.seen(),
            shippedAtByTrackNumber(sandbox, phase.openId),
            o.orders,
          );
    if (store !== undefined && store.webhooksNotAccepted > 0) {
      notes.push(`${store.webhooksNotAccepted} store webhooks not answered 200 by the gateway`);
    }

    return summarize({
      o,
      notes,
      outcomes,
      submittedAt,
      firstSubmit,
      durationMs: (unfinished.length > 0 ? endedAt : lastOutcomeAt) - firstSubmit,
      toPaid: atPaid === undefined ? undefined : callsBetween(before, atPaid),
      toEnd: callsBetween(before, atEnd),
      actions,
      workerRssMb,
      store,
    });
  } finally {
    await phase.close();
  }
}

/** Submits (or places in the store) every order at once; resolves with their order numbers. */
async function submitAll(
  phase: PhaseStack,
  count: number,
  prefix: string,
  submittedAt: Map<string, number>,
): Promise<string[]> {
  const store = phase.store;
  if (store !== undefined) {
    return Promise.all(
      Array.from({ length: count }, async () => {
        const at = Date.now();
        const orderNumber = await store.place();
        submittedAt.set(orderNumber, at);
        return orderNumber;
      }),
    );
  }
  const orders = await benchOrders(count, prefix.toUpperCase());
  await Promise.all(
    orders.map(async (order) => {
      submittedAt.set(order.orderNumber, Date.now());
      await phase.orders.submit(order.body);
    }),
  );
  return orders.map((order) => order.orderNumber);
}

/** The order workflow's result (its final status), or why there is none. */
async function awaitOutcome(
  stack: BenchStack,
  orderNumber: string,
  signal: AbortSignal,
): Promise<Outcome> {
  const handle = stack.client.workflow.getHandle<() => Promise<OrderStatus>>(
    orderWorkflowId(orderNumber),
  );
  try {
    return { status: await stack.client.withAbortSignal(signal, () => handle.result()) };
  } catch (err) {
    if (signal.aborted) return new Promise<never>(() => undefined);
    return { failed: err instanceof Error ? err.message : String(err) };
  }
}

async function untilDone(done: Promise<unknown>, deadline: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
  });
  try {
    await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where the orders that did not complete stand, by stage (search attribute) or failure. */
async function describeUnfinished(
  stack: BenchStack,
  unfinished: readonly string[],
  outcomes: ReadonlyMap<string, Outcome>,
): Promise<string> {
  const stageOf = async (orderNumber: string): Promise<string> => {
    const described = await stack.client.workflow
      .getHandle(orderWorkflowId(orderNumber))
      .describe()
      .catch(() => undefined);
    return described?.typedSearchAttributes.get(FulfillmentStage) ?? 'not started';
  };
  const byStage = new Map<string, number>();
  for (const orderNumber of unfinished) {
    const failed = outcomes.get(orderNumber)?.failed !== undefined;
    const where = failed ? 'failed' : await stageOf(orderNumber);
    byStage.set(where, (byStage.get(where) ?? 0) + 1);
  }
  const stages = [...byStage].map(([stage, n]) => `${n} ${stage}`).join(', ');
  return `${unfinished.length} orders did not complete before the deadline (${stages}); actions counted to the deadline`;
}

function summarize(m: {
  o: PhaseOptions;
  notes: string[];
  outcomes: ReadonlyMap<string, Outcome>;
  submittedAt: ReadonlyMap<string, number>;
  firstSubmit: number;
  durationMs: number;
  toPaid: CallCount | undefined;
  toEnd: CallCount;
  actions: PhaseActions;
  workerRssMb: number | null;
  store: StoreFigures | undefined;
}): PhaseResult {
  const { o, notes } = m;
  const n = o.orders;
  const paidAt: number[] = [];
  const toPaid: number[] = [];
  const toCreated: number[] = [];
  let completed = 0;
  for (const [orderNumber, outcome] of m.outcomes) {
    const status = outcome.status;
    if (status === undefined) continue;
    if (status.stage === Stage.COMPLETED) completed += 1;
    const created = toCreatedMs(status, m.submittedAt.get(orderNumber) ?? m.firstSubmit);
    if (created !== undefined) toCreated.push(created);
    const paid = status.timeline.find((entry) => entry.stage === Stage.PAID);
    if (paid === undefined) continue;
    const at = Date.parse(paid.at);
    paidAt.push(at);
    toPaid.push(at - (m.submittedAt.get(orderNumber) ?? m.firstSubmit));
  }
  toPaid.sort((a, b) => a - b);
  const created = toCreatedSummary(toCreated);
  const allPaid = paidAt.length === n;
  const ordersPerHour = allPaid ? n / ((Math.max(...paidAt) - m.firstSubmit) / 3_600_000) : null;

  const payments = m.toPaid?.payments ?? 0;
  const batchSize = o.batching === 'on' ? maxBatchSize(o.tuning) : null;
  const bound = boundOrdersPerHour(o.ratePerSecond, batchSize ?? undefined);
  const perOrder = (x: number) => x / n;
  const perOrderAll = (record: Record<string, number>) =>
    Object.fromEntries(Object.entries(record).map(([k, v]) => [k, perOrder(v)]));
  const orNull = (x: number) => (Number.isFinite(x) ? x : null);

  return {
    batching: o.batching,
    orders: n,
    paid: paidAt.length,
    completed,
    ratePerSecond: o.ratePerSecond,
    batchSize,
    callsPerOrder: m.toPaid === undefined ? null : perOrder(m.toPaid.total),
    callsPerOrderToCompleted: completed === n ? perOrder(m.toEnd.total) : null,
    callsToPaidByPath: m.toPaid?.byPath ?? {},
    rateLimitedToPaid: m.toPaid?.rateLimited ?? null,
    ordersPerPayment: payments > 0 ? n / payments : null,
    ordersPerHour,
    boundOrdersPerHour: bound,
    fractionOfBound: ordersPerHour === null ? null : ordersPerHour / bound,
    actionsPerOrder: perOrder(m.actions.total),
    actionsByKind: perOrderAll(m.actions.byKind),
    actionsByWorkflowType: perOrderAll(m.actions.byWorkflowType),
    workflowExecutions: m.actions.executions,
    p50ToPaidMs: orNull(quantile(toPaid, 0.5)),
    p95ToPaidMs: orNull(quantile(toPaid, 0.95)),
    p50ToCreatedMs: created.p50Ms,
    p99ToCreatedMs: created.p99Ms,
    workerRssMb: m.workerRssMb,
    durationMs: m.durationMs,
    ...(m.store !== undefined && { store: m.store }),
    notes,
  };
}
