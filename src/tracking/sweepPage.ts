/**
 * One page of a tracking sweep, shared by the sweeps the schedule started (trackingSweep.ts) and
 * the account's long-running sweeper (trackingSweeper.ts): ask the supplier about a page of
 * tracked orders, match the answers by every id, judge each order and tell it what it does not
 * know yet. See trackingSweep.ts for the whole story.
 */
import { ActivityFailure, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { BatchActivities } from '../durable/supplierActivities.js';
import type { OrderSnapshot } from '../order/lookupActivities.js';
import type { OrchestrationActivities, OrderSignal } from './orchestrationActivities.js';
import { queuesOf } from '../temporal/taskQueues.js';
import { SupplierPriority } from '../durable/supplierPriority.js';
import {
  chunk,
  judge,
  needsProof,
  told,
  withEvents,
  type Observation,
  type TrackingPolicy,
} from './trackingChanges.js';
import { askKey, byParcel, canAskByNumber, matchAnswers, proofOf } from './trackingMatch.js';
import { memoryIn, remember, type SweepMemory } from './trackingMemory.js';
import type { PushedOrder, SweepCounts, TrackedOrder } from './contract.js';
import { accountPriority } from '../durable/account.js';

export const PAGE_SIZE = 1_000;
export const STALE_AFTER_SECONDS = 14 * 24 * 3_600;
export const MISSING_AFTER_SECONDS = 3_600;
/** Signals per signalOrders activity: bounded activity input, steady progress. */
const SIGNALS_PER_CALL = 100;

export const orchestration = () =>
  proxyActivities<OrchestrationActivities>({
    taskQueue: workflowInfo().taskQueue,
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
    priority: accountPriority(),
  });

export const batch = () =>
  proxyActivities<BatchActivities>({
    // The account's one supplier queue, behind payments, carts and creates.
    taskQueue: queuesOf(workflowInfo().taskQueue).supplier,
    priority: { priorityKey: SupplierPriority.Tracking, ...accountPriority({ weighted: true }) },
    // Waiting in the queue's backlog counts here, not in startToClose.
    scheduleToCloseTimeout: '10 minutes',
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
  });

export function noCounts(): SweepCounts {
  return {
    runs: 1,
    orders: 0,
    batchCalls: 0,
    detailCalls: 0,
    proofCalls: 0,
    failedCalls: 0,
    missing: 0,
    signalled: 0,
    flagged: 0,
    toldBefore: 0,
    closed: 0,
    unsignalled: 0,
  };
}

/** One page: ask, match, judge, signal; `memory` and `counts` are updated in place. */
export async function sweepPage(
  tracked: readonly TrackedOrder[],
  memory: SweepMemory,
  counts: SweepCounts,
  policy: TrackingPolicy,
): Promise<void> {
  counts.orders += tracked.length;
  await askJudgeTell(byParcel(tracked), memory, counts, policy);
}

/**
 * Orders pushes named, asked about at once and told what the supplier shows, as a sweep would tell
 * them; a push's tracking events ride along. An order the supplier does not list here is not
 * counted missing: its query may trail the push, and the sweeps judge that.
 */
export async function lookAtPushed(
  pushed: readonly PushedOrder[],
  memory: SweepMemory,
  counts: SweepCounts,
  policy: TrackingPolicy,
): Promise<void> {
  counts.orders += pushed.length;
  const events = new Map(pushed.flatMap((o) => (o.events ? [[o.workflowId, o.events]] : [])));
  await askJudgeTell(pushed, memory, counts, policy, events);
}

async function askJudgeTell(
  orders: readonly TrackedOrder[],
  memory: SweepMemory,
  counts: SweepCounts,
  policy: TrackingPolicy,
  pushedEvents?: ReadonlyMap<string, NonNullable<PushedOrder['events']>>,
): Promise<void> {
  const now = new Date().getTime();
  const { answers, unknown } = await askSupplier(orders, counts);
  const proofs = await proofsOf(orders, answers, counts);
  counts.batchCalls = counts.detailCalls + counts.proofCalls;

  const signals: OrderSignal[] = [];
  /** What the sweep remembers each signal under: the order, or one parcel of it. */
  const keys: string[] = [];
  for (const order of orders) {
    const snapshot = answers.get(order.workflowId);
    const observation: Observation =
      snapshot !== undefined
        ? { answer: 'found', snapshot, proof: proofs.get(order.workflowId) }
        : unknown.has(order.workflowId) || pushedEvents !== undefined
          ? { answer: 'unknown' }
          : { answer: 'missing' };
    if (observation.answer === 'missing') counts.missing += 1;
    const watch = memory.watches[order.workflowId];
    const verdict = judge(order, observation, watch, policy, now, memory.sweep);
    remember(memory, order.workflowId, verdict.watch);
    if (verdict.toldBefore) counts.toldBefore += 1;
    const news = withEvents(verdict.news, snapshot, pushedEvents?.get(order.workflowId));
    if (news !== undefined) {
      signals.push({ workflowId: order.signalTo ?? order.workflowId, news });
      keys.push(order.workflowId);
    }
  }
  await tellOrders(signals, keys, memory, counts, now);
}

/**
 * The supplier's answers by workflow id, asked 100 ids a call by the id each order stored, then
 * by order number for those no answer listed; `unknown`: the orders whose call failed.
 */
async function askSupplier(
  orders: readonly TrackedOrder[],
  counts: SweepCounts,
): Promise<{ answers: Map<string, OrderSnapshot>; unknown: Set<string> }> {
  const { getOrderDetailBatch } = batch();
  const answers = new Map<string, OrderSnapshot>();
  const unknown = new Set<string>();
  const ask = async (part: readonly TrackedOrder[], key: (o: TrackedOrder) => string) => {
    await Promise.all(
      chunk(part).map(async (slice) => {
        counts.detailCalls += 1;
        const found = await orFailed(
          getOrderDetailBatch([...new Set(slice.map(key))]),
          'getOrderDetailBatch',
          counts,
        );
        if (found === undefined) for (const o of slice) unknown.add(o.workflowId);
        else for (const [workflowId, s] of matchAnswers(slice, found)) answers.set(workflowId, s);
      }),
    );
  };
  await ask(orders, askKey);
  // An id the supplier does not take as a key (or no longer knows) hides the order: its number.
  await ask(
    orders.filter(
      (o) => !answers.has(o.workflowId) && !unknown.has(o.workflowId) && canAskByNumber(o),
    ),
    (o) => o.orderNumber!,
  );
  return { answers, unknown };
}

/** The proof of delivery of the delivered orders that need it, by workflow id. */
async function proofsOf(
  orders: readonly TrackedOrder[],
  answers: ReadonlyMap<string, OrderSnapshot>,
  counts: SweepCounts,
): Promise<Map<string, string[]>> {
  const { getProofOfDelivery } = batch();
  const proofs = new Map<string, string[]>();
  const delivered = orders.filter((o) => needsProof(o, answers.get(o.workflowId)));
  await Promise.all(
    chunk(delivered).map(async (slice) => {
      counts.proofCalls += 1;
      const snapshots = slice.map((o) => answers.get(o.workflowId)!);
      const found = await orFailed(
        getProofOfDelivery([...new Set(snapshots.map((s) => s.svcOrderId))]),
        'getProofOfDelivery',
        counts,
      );
      if (found === undefined) return;
      for (const o of slice) {
        const urls = proofOf(answers.get(o.workflowId)!, found);
        if (urls !== undefined) proofs.set(o.workflowId, urls);
      }
    }),
  );
  return proofs;
}

/** Signals the news, a slice per call; a failed slice is told by the next sweep. */
async function tellOrders(
  signals: readonly OrderSignal[],
  keys: readonly string[],
  memory: SweepMemory,
  counts: SweepCounts,
  now: number,
): Promise<void> {
  const { signalOrders } = orchestration();
  for (const [n, slice] of chunk(signals, SIGNALS_PER_CALL).entries()) {
    const sliceKeys = keys.slice(n * SIGNALS_PER_CALL, (n + 1) * SIGNALS_PER_CALL);
    let outcome;
    try {
      outcome = await signalOrders(slice);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      counts.unsignalled += slice.length;
      log.warn('tracking sweep: signalling failed; those orders are told by the next sweep', {
        orders: slice.length,
        error: err.cause?.message ?? err.message,
      });
      continue;
    }
    counts.signalled += outcome.signalled;
    counts.closed += outcome.closed;
    for (const [i, { news }] of slice.entries()) {
      const key = sliceKeys[i]!;
      if (news.kind === 'stale') counts.flagged += 1;
      remember(memory, key, told(memory.watches[key], news, now, memory.sweep));
    }
  }
}

/** The call's result, or undefined (counted and logged) when it failed after its retries. */
export async function orFailed<T>(
  call: Promise<T>,
  endpoint: string,
  counts: SweepCounts,
): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    counts.failedCalls += 1;
    log.warn('tracking sweep: a call failed; its orders wait for the next sweep', {
      endpoint,
      error: err.cause?.message ?? err.message,
    });
    return undefined;
  }
}

/** What the latest completed sweep remembered; nothing when it cannot be read. */
export async function previousMemory(ordersQueue: string): Promise<SweepMemory | undefined> {
  try {
    return memoryIn(await orchestration().lastSweepResult({ ordersQueue }));
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    log.warn('tracking sweep: the previous sweep could not be read; starting afresh', {
      error: err.cause?.message ?? err.message,
    });
    return undefined;
  }
}
