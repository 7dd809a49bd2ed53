/**
 * One tracking sweep: asks the supplier about every open order of the account that waits for it
 * and tells each order only what it does not know yet. The account's long-running sweeper
 * (trackingSweeper.ts) sweeps every N seconds the same way, in its own run; this workflow is the
 * one-off sweep (an earlier release started one per interval from a Temporal Schedule, and tests
 * and operators may still start one). Orders never poll.
 *
 * A sweep walks visibility one page at a time. For a page it asks getOrderDetailBatch, 100 ids a
 * call, by the supplier id each order stored; the orders no answer listed are asked again by their
 * order number; delivered ones get their proof of delivery. Answers are matched by every id
 * (trackingMatch.ts) and each order is judged (trackingChanges.ts): news that moves it on, or a
 * `stale` flag when the supplier no longer lists it or its status has not moved for too long. Then
 * the sweep continues as new with the next page (the page loop, sweepPages.ts, is the sweeper's too), so one run's history holds one page of work
 * whatever the number of orders. What it remembers of a few orders (trackingMemory.ts) travels in
 * its input from page to page, and in its result from one sweep to the next: a sweep starts by
 * reading the result of the latest completed one.
 *
 * The account is the queue set the sweep runs on: it lists the order workflows of its own orders
 * queue and asks the supplier queue of the same set (queuesOf) at the tracking priority, behind
 * every order's calls. trackInfo is not asked: the order detail already carries the status, the
 * tracking number and URL and the logistics line, which is all a `supplierStatus` holds, and
 * trackInfo would spend more of the account's budget that order creation and payment need.
 */
import { continueAsNew, deprecatePatch, log, workflowInfo } from '@temporalio/workflow';
import {
  MISSING_AFTER_SECONDS,
  noCounts,
  previousMemory,
  PAGE_SIZE,
  STALE_AFTER_SECONDS,
} from './sweepPage.js';
import { sweepPages } from './sweepPages.js';
import type { SweepCounts } from './contract.js';
import { afterSweep, bounded, emptyMemory, type SweepMemory } from './trackingMemory.js';
import { Patch } from '../durable/versions.js';

export interface TrackingSweepInput {
  /** Orders per page, and per run (default 1000). */
  pageSize?: number;
  /** A supplier status unchanged this long flags the order (default 14 days). */
  staleAfterSeconds?: number;
  /** An order the supplier has not listed this long (over 2 sweeps at least) is flagged (default 1 h). */
  missingAfterSeconds?: number;
  /** What earlier sweeps remembered; when left out, the latest completed sweep's result. */
  memory?: SweepMemory;
  /** Set when the sweep continues as new: the page to go on with, and the counts so far. */
  next?: { pageToken: string; counts: SweepCounts };
}

export interface TrackingSweepSummary extends SweepCounts {
  /** The sweep's number (counted in its memory). */
  sweep: number;
  /** What the next sweep starts from. */
  memory: SweepMemory;
}

export async function trackingSweep(input: TrackingSweepInput = {}): Promise<TrackingSweepSummary> {
  const ordersQueue = workflowInfo().taskQueue;
  // The frozen sweep of runs started before this patch is retired (src/frozen/sets.ts): a sweep
  // ends within minutes, so none is open on it (docs/changing-workflows.md).
  deprecatePatch(Patch.TrackingSweepPages);
  const policy = {
    staleAfterMs: (input.staleAfterSeconds ?? STALE_AFTER_SECONDS) * 1_000,
    missingAfterMs: (input.missingAfterSeconds ?? MISSING_AFTER_SECONDS) * 1_000,
  };
  let memory: SweepMemory;
  let counts: SweepCounts;
  if (input.next === undefined) {
    const earlier = input.memory ?? (await previousMemory(ordersQueue)) ?? emptyMemory();
    memory = { sweep: earlier.sweep + 1, watches: { ...earlier.watches } };
    counts = noCounts();
  } else {
    memory = { sweep: input.memory?.sweep ?? 1, watches: { ...input.memory?.watches } };
    counts = { ...input.next.counts, runs: input.next.counts.runs + 1 };
  }

  const end = await sweepPages({
    ordersQueue,
    pageSize: input.pageSize ?? PAGE_SIZE,
    policy,
    memory,
    counts,
    ...(input.next !== undefined && { pageToken: input.next.pageToken }),
    stopBeforeNextPage: () => true,
  });
  if (end.kind === 'listingFailed') {
    return { ...counts, sweep: memory.sweep, memory: bounded(memory) };
  }
  if (end.kind === 'stopped') {
    const { pageSize, staleAfterSeconds, missingAfterSeconds } = input;
    await continueAsNew<typeof trackingSweep>({
      ...(pageSize !== undefined && { pageSize }),
      ...(staleAfterSeconds !== undefined && { staleAfterSeconds }),
      ...(missingAfterSeconds !== undefined && { missingAfterSeconds }),
      memory: bounded(memory),
      next: { pageToken: end.pageToken, counts },
    });
  }
  const summary = { ...counts, sweep: memory.sweep };
  log.info('tracking sweep done', summary);
  return { ...summary, memory: afterSweep(memory, new Date().getTime(), policy.staleAfterMs) };
}
