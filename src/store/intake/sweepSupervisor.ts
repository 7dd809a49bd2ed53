/**
 * The supervisor of the store order sweeps (store/sweep/storeOrderSweep.ts): every worker, at
 * start and then every minute, starts the sweep of each WooCommerce connection the registry lists
 * unless it runs (start with USE_EXISTING: nothing is written to a running sweep's history, and any
 * number of workers may do it at once). A sweep an operator terminated, or one that ended because
 * its connection was removed and is back, runs again within a minute. A removed connection's
 * sweep ends by itself at its next sweep.
 */
import type { Client } from '@temporalio/client';

import type { Logger } from '../../telemetry/log.js';
import {
  accountStartOptions,
  WorkflowPriority,
  type AccountRef,
} from '../../accounts/accountStart.js';
import { queuePrefix, type TaskQueues } from '../../temporal/taskQueues.js';
import {
  DEFAULT_SWEEP_EVERY,
  STORE_ORDER_SWEEP_WORKFLOW,
  storeSweepId,
  sweepsOrders,
} from '../contract.js';
import type { Store } from '../../accounts/contract.js';

/** How often the workers look that every sweep runs. */
export const SUPERVISE_EVERY_MS = 60_000;

export interface SweepSupervisorOptions {
  client: Client;
  queues: TaskQueues;
  stores: { stores(): readonly Store[]; refresh?(): Promise<void> };
  /** The account a connection's sweep is started with (SupplierAccount, tier memo). */
  accountOf: (id: string) => AccountRef;
  everyMs?: number;
  log: Logger;
}

export interface SweepSupervisor {
  /** Starts every sweep that does not run; resolves with their workflow ids. */
  ensure(): Promise<string[]>;
  stop(): Promise<void>;
}

export function superviseStoreSweeps(opts: SweepSupervisorOptions): SweepSupervisor {
  let under: Promise<unknown> = Promise.resolve();
  const ensure = async (): Promise<string[]> => {
    await opts.stores.refresh?.();
    const swept = opts.stores.stores().filter(sweepsOrders);
    const results = await Promise.allSettled(swept.map((s) => ensureSweep(opts, s)));
    const ids: string[] = [];
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') ids.push(r.value);
      else {
        opts.log.warn(
          { connection: swept[i]!.id, err: r.reason as unknown },
          'store sweep not ensured; tried again within a minute',
        );
      }
    });
    return ids;
  };
  const timer = setInterval(() => {
    under = under.then(ensure).catch((err: unknown) => {
      opts.log.warn({ err }, 'store sweeps not ensured; tried again within a minute');
    });
  }, opts.everyMs ?? SUPERVISE_EVERY_MS);
  timer.unref();
  return {
    ensure: () => {
      const now = under.then(ensure);
      under = now.catch(() => undefined);
      return now;
    },
    async stop() {
      clearInterval(timer);
      await under.catch(() => undefined);
    },
  };
}

async function ensureSweep(opts: SweepSupervisorOptions, store: Store): Promise<string> {
  const workflowId = storeSweepId(queuePrefix(opts.queues), store.id);
  await opts.client.workflow.start(STORE_ORDER_SWEEP_WORKFLOW, {
    ...accountStartOptions(opts.accountOf(store.account), WorkflowPriority.Singleton),
    workflowId,
    taskQueue: opts.queues.orders,
    args: [{ connection: store.id }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: `order sweep of store ${store.id}: lists its recent orders every ${store.sweepEvery ?? DEFAULT_SWEEP_EVERY} and starts those whose webhook was lost`,
  });
  return workflowId;
}
