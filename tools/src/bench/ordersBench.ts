/**
 * `dropflow bench orders`: N flow-B orders through the whole stack (Temporal dev server, sandbox,
 * gateway, worker) at the account's rate, twice — checkout batching off, then on — each phase on
 * a fresh account and worker, measured by ./orderPhase.ts. With `store`, the orders come from a
 * Shopify or WooCommerce double as its webhooks, and their tracking goes back to it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Logger } from 'dropflow/log';
import { CALLS_PER_UNBATCHED_ORDER } from './bounds.js';
import { Batching, type CheckoutTuning } from './checkoutSettings.js';
import { runPhase, type PhaseResult } from './orderPhase.js';
import { startBenchStack } from './ordersStack.js';
import type { BenchStorePlatform } from './storeFigures.js';

export interface OrdersBenchOptions {
  orders: number;
  /** The account's general rate limit and the worker's rate, requests/s. */
  ratePerSecond: number;
  batchRatePerSecond: number;
  trackingEverySeconds: number;
  /** Milliseconds between the sandbox's automatic steps of a paid order. */
  lifecycleStepMs: number;
  tuning: CheckoutTuning;
  /** Per phase, from its first submit (default: phaseDeadlineMs). */
  deadlineMs?: number;
  /** Orders come as this store's webhooks (a store double), and tracking goes back to it. */
  store?: BenchStorePlatform;
  /** Keep the logs and databases even when every order completed. */
  keep: boolean;
  log: Logger;
  /** A line about the run (stderr). */
  say: (line: string) => void;
}

export const DEFAULT_ORDERS_BENCH = {
  orders: 200,
  ratePerSecond: 1,
  batchRatePerSecond: 2,
  trackingEverySeconds: 60,
  lifecycleStepMs: 1_000,
} as const;

export interface OrdersBenchResult {
  off: PhaseResult;
  on: PhaseResult;
  /** The run's logs and databases, when kept. */
  workDir: string | undefined;
  durationMs: number;
}

/** Twice the unbatched time to pay every order, plus time to start and to complete. */
export function phaseDeadlineMs(orders: number, ratePerSecond: number): number {
  return ((2 * orders * CALLS_PER_UNBATCHED_ORDER) / ratePerSecond) * 1_000 + 300_000;
}

export function phaseComplete(r: PhaseResult): boolean {
  return r.completed === r.orders;
}

export async function runOrdersBench(o: OrdersBenchOptions): Promise<OrdersBenchResult> {
  const started = Date.now();
  const runId = started.toString(36).slice(-6);
  const workDir = await mkdtemp(join(tmpdir(), 'dropflow-bench-'));
  const from = o.store === undefined ? '' : ` from a ${o.store} store double`;
  o.say(
    `bench orders: ${o.orders} orders per phase${from} at ${o.ratePerSecond}/s, files in ${workDir}`,
  );
  const stack = await startBenchStack({ ...o, workDir });
  const results: Partial<Record<Batching, PhaseResult>> = {};
  try {
    for (const batching of [Batching.off, Batching.on]) {
      results[batching] = await runPhase(stack, {
        ...o,
        batching,
        runId,
        deadlineMs: o.deadlineMs ?? phaseDeadlineMs(o.orders, o.ratePerSecond),
      });
    }
  } finally {
    await stack.close();
  }
  const off = results.off!;
  const on = results.on!;
  const keep = o.keep || !phaseComplete(off) || !phaseComplete(on);
  if (!keep) await rm(workDir, { recursive: true, force: true });
  return { off, on, workDir: keep ? workDir : undefined, durationMs: Date.now() - started };
}
