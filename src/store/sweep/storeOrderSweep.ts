/**
 * `storeOrderSweep` (id `store-sweep:<connection>`): one WooCommerce connection's long-running
 * order sweep. WooCommerce does not retry a webhook it could not deliver; every interval (the
 * connection's `sweepEvery`, default 5 minutes) this lists the site's orders changed since its
 * cursor less an overlap and hands each to the webhook's own intake path
 * (store/intake/sweepActivities.ts): an order whose webhook was lost starts, one whose webhook
 * came is found there. It never fails:
 *
 * - a site that refuses the key (revoked, no read permission) waits, named `store-refused` in its
 *   `storeSweepStatus` query, and asks again every interval (at most 5 minutes) until mended;
 * - a site that does not answer (or throttles past the client's bound) waits `store-unavailable`,
 *   at least its Retry-After;
 * - a connection removed from the registry ends the sweep (COMPLETED).
 *
 * The workers supervise it (store/intake/sweepSupervisor.ts): started if it does not run, also
 * after an operator terminated it, when it takes up the cursor its last run kept in its memo.
 * `storeSweepNow` ends the wait at once. Continues as new when its history grows heavy.
 */
import {
  ActivityFailure,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';

import { accountPriority } from '../../durable/account.js';
import { shouldContinueAsNew } from '../../durable/longRunning.js';
import type { OrdersQueueActivities } from '../../durable/supplierActivities.js';
import {
  noSweepCounts,
  storeSweepNowSignal,
  storeSweepStatusQuery,
  SWEEP_CURSOR_MEMO,
  SweepWait,
} from '../contract.js';
import { SweepState, type SweepMemory } from './sweepState.js';

export interface StoreOrderSweepInput {
  connection: string;
  /** Carried by continue-as-new; absent on a fresh start. */
  memory?: SweepMemory;
}

/** The longest a refused or silent site waits before it is asked again. */
const WAIT_AT_MOST_MS = 5 * 60_000;
/** The least wait after a failure (Retry-After may say less). */
const WAIT_AT_LEAST_MS = 5_000;
/** A new connection's first sweep looks back this far (orders paid while it was being set up). */
const FIRST_LOOKBACK_MS = 5 * 60_000;
const DEFAULT_EVERY_MS = 5 * 60_000;

export async function storeOrderSweep(input: StoreOrderSweepInput): Promise<void> {
  const acts = proxyActivities<OrdersQueueActivities>({
    taskQueue: workflowInfo().taskQueue,
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 3 },
    priority: accountPriority(),
  });
  let askedNow = false;
  let nextSweepAt: string | undefined;
  setHandler(storeSweepNowSignal, () => {
    askedNow = true;
  });
  const state = new SweepState(input.connection, input.memory ?? (await firstMemory()));
  setHandler(storeSweepStatusQuery, () => state.status(nextSweepAt));
  upsertMemo({ [SWEEP_CURSOR_MEMO]: state.cursor });

  for (;;) {
    const waitMs = await sweep(state);
    if (waitMs === undefined) {
      log.info('store sweep: the connection was removed; the sweep ends', {
        connection: input.connection,
      });
      return;
    }
    nextSweepAt = new Date(new Date().getTime() + waitMs).toISOString();
    await condition(() => askedNow, waitMs);
    askedNow = false;
    nextSweepAt = undefined;
    if (shouldContinueAsNew()) {
      await continueAsNew<typeof storeOrderSweep>({
        connection: input.connection,
        memory: state.memory,
      });
    }
  }

  /** One sweep, page by page; the wait before the next, or undefined when the store is gone. */
  async function sweep(s: SweepState): Promise<number | undefined> {
    s.started(new Date(), noSweepCounts());
    let page = 1;
    for (;;) {
      let r: Awaited<ReturnType<OrdersQueueActivities['sweepStoreOrders']>>;
      try {
        r = await acts.sweepStoreOrders({
          connection: s.connection,
          since: s.since,
          page,
          seen: s.seen,
        });
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        // Temporal or the worker failed the hand-over: the orders wait for the next sweep.
        s.waits(new Date(), {
          everyMs: s.everyMs,
          reason: SweepWait.Unavailable,
          message: err.cause?.message ?? err.message,
        });
        return Math.min(s.everyMs, WAIT_AT_MOST_MS);
      }
      if (r.kind === 'removed') return undefined;
      if (r.kind === 'waiting') {
        s.waits(new Date(), r);
        return Math.max(
          WAIT_AT_LEAST_MS,
          r.retryAfterMs ?? 0,
          Math.min(r.everyMs, WAIT_AT_MOST_MS),
        );
      }
      s.pagesRead(r);
      if (r.nextPage === undefined) break;
      page = r.nextPage;
    }
    s.finished(new Date());
    if (s.cursor !== workflowInfo().memo?.[SWEEP_CURSOR_MEMO]) {
      upsertMemo({ [SWEEP_CURSOR_MEMO]: s.cursor });
    }
    log.info('store sweep done', { connection: s.connection, ...s.status(undefined).last });
    return s.everyMs;
  }

  /** A fresh start takes up the cursor of the sweep's last run, or looks back a little. */
  async function firstMemory(): Promise<SweepMemory> {
    let cursor: string | undefined;
    try {
      const { workflowId, runId } = workflowInfo();
      cursor = await acts.storeSweepResumeCursor({ workflowId, runId });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
    }
    return {
      cursor: cursor ?? new Date(new Date().getTime() - FIRST_LOOKBACK_MS).toISOString(),
      seen: [],
      everyMs: DEFAULT_EVERY_MS,
      sweeps: 0,
    };
  }
}
