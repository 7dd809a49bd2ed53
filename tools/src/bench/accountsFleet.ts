/**
 * The fleet of `dropflow bench accounts`, on the local stack (../localStack/stack.ts): one Temporal
 * dev server and the sandbox (a process of its own, so that the requests' times and rate it
 * measures do not depend on this busy process; paid orders stay paid: no lifecycle steps), a
 * sandbox account per bench account at its tier (every request but the token calls spends it: one
 * budget), the accounts in the registry file, and `dropflow worker` processes that read it, started
 * exactly as a user or docker-compose starts them (no NODE_OPTIONS, no fleet share: they find each
 * other through Temporal): one fleet, one queue set, every account. More may join mid-run.
 */
import { join } from 'node:path';

import { staticAccountDirectory } from 'dropflow/accounts';
import { OrderClient } from 'dropflow/client';
import type { Logger } from 'dropflow/log';
import { taskQueues } from 'dropflow/temporal';
import type { DropflowProcess } from '../localStack/dropflowProcess.js';
import { SandboxControls } from '../localStack/sandboxControls.js';
import {
  ACCOUNT_BALANCE,
  startLocalStack,
  workerProcess,
  type ApartSandbox,
  type LocalStack,
} from '../localStack/stack.js';
import type { BenchAccount } from './accountsPlan.js';
import { writeBenchRegistry } from './accountsRegistry.js';

/**
 * Settings the bench gives the workers itself, and the sizes a worker finds for itself (WORKER_*):
 * the caller's environment does not decide them.
 */
const BENCH_ENV = /^(CHECKOUT_|TRACKING_EVERY_SECONDS$|REPLAY_CHECK_LIMIT$|METRICS_PORT$|WORKER_)/;
export const FLEET_WORKERS = 2;
/** The deployment's own account (SUPPLIER_API_KEY): idle, as the environment always has one. */
const DEFAULT_ACCOUNT_RATE = 1;

export interface FleetAccount extends BenchAccount {
  openId: string;
  controls: SandboxControls;
}

export interface AccountsFleetOptions {
  workDir: string;
  accounts: readonly BenchAccount[];
  maxBatch: number;
  trackingEverySeconds: number;
  /** Workers at the start (default FLEET_WORKERS). */
  workers?: number;
  log: Logger;
}

export interface AccountsFleet {
  stack: LocalStack<ApartSandbox>;
  accounts: FleetAccount[];
  orders: OrderClient;
  /** Every worker started, running or stopped. */
  workers: DropflowProcess[];
  /** Starts one more worker of the fleet (resolves once it polls). */
  addWorker(): Promise<DropflowProcess>;
  close(): Promise<void>;
}

export async function startAccountsFleet(o: AccountsFleetOptions): Promise<AccountsFleet> {
  const stack = await startLocalStack({
    who: 'bench',
    workDir: o.workDir,
    log: o.log,
    sandbox: { ratePerSecond: DEFAULT_ACCOUNT_RATE, batchRatePerSecond: 2, lifecycleStepMs: 0 },
    withheldEnv: BENCH_ENV,
    sandboxApart: true,
  });
  try {
    const url = stack.sandbox.url;
    const own = await SandboxControls.createAccount(url, ACCOUNT_BALANCE);
    const accounts: FleetAccount[] = [];
    const keys: string[] = [];
    for (const account of o.accounts) {
      const made = await SandboxControls.createAccount(url, ACCOUNT_BALANCE, {
        tier: account.tier,
        oneBudget: true,
      });
      keys.push(made.apiKey);
      accounts.push({
        ...account,
        openId: made.openId,
        controls: new SandboxControls(url, made.openId),
      });
    }
    const accountsFile = join(o.workDir, 'accounts.json');
    const registered = accounts.map((a, i) => ({
      id: a.id,
      tier: a.tier,
      apiKey: keys[i]!,
      openId: a.openId,
    }));
    const env: NodeJS.ProcessEnv = {
      ...stack.env,
      ACCOUNTS_FILE: accountsFile,
      SUPPLIER_API_KEY: own.apiKey,
      SUPPLIER_RATE_PER_SECOND: String(DEFAULT_ACCOUNT_RATE),
      CHECKOUT_BATCHING: 'on',
      CHECKOUT_MAX_BATCH: String(o.maxBatch),
      TRACKING_EVERY_SECONDS: String(o.trackingEverySeconds),
    };
    await writeBenchRegistry(env, registered);
    // The workers find each other and share every account's slots: together at most the tier.
    const workers: DropflowProcess[] = [];
    const addWorker = async (): Promise<DropflowProcess> => {
      const worker = workerProcess({
        env,
        logFile: join(o.workDir, `worker-${workers.length + 1}.log`),
      });
      workers.push(worker);
      stack.closers.push(() => worker.close());
      await worker.start();
      return worker;
    };
    await Promise.all(Array.from({ length: o.workers ?? FLEET_WORKERS }, addWorker));

    return {
      stack,
      accounts,
      // The bench submits as the gateway would: orders name accounts of the registry.
      orders: new OrderClient(stack.client, taskQueues(''), {
        accounts: staticAccountDirectory(registered.map((a) => ({ ...a, intakeTokenSha256: [] }))),
      }),
      workers,
      addWorker,
      close: () => stack.close(),
    };
  } catch (err) {
    await stack.close();
    throw err;
  }
}
