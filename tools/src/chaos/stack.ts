/**
 * The processes of a chaos run, on the local stack (../localStack/stack.ts): a Temporal dev server
 * (child process, on a database file), the sandbox (in this process, memory state, automatic
 * lifecycle), the gateway and the worker (`dropflow gateway` and `dropflow worker` child processes
 * of the current tree), and a client.
 */
import { join } from 'node:path';

import { OrderClient } from 'dropflow/client';
import { callbackUrlFor, enableWebhooks } from 'dropflow/gateway';
import type { Logger } from 'dropflow/log';
import { SupplierClient } from 'dropflow/supplier';
import { taskQueues } from 'dropflow/temporal';
import type { StartedSandbox } from '../sandbox/server.js';
import type { DropflowProcess } from '../localStack/dropflowProcess.js';
import { SandboxControls } from '../localStack/sandboxControls.js';
import {
  ACCOUNT_BALANCE,
  gatewayProcess,
  startLocalStack,
  workerProcess,
} from '../localStack/stack.js';
import { checkoutBudgetEnv, checkoutBudgetsUnder, dynamicConfigArgs } from './limits.js';
import type { TemporalServer } from '../localStack/temporalServer.js';
import { waitFor } from '../localStack/wait.js';

export interface StackOptions {
  workDir: string;
  ratePerSecond: number;
  batchRatePerSecond: number;
  trackingEverySeconds: number;
  lifecycleStepMs: number;
  batchLagMs: number;
  /** Run the gateway and register it for the sandbox's webhooks. */
  gateway: boolean;
  /** The dev server's lowered limits (limits.ts), or undefined for its defaults. */
  loweredLimits: Readonly<Record<string, number>> | undefined;
  log: Logger;
  /** Things the run did differently than asked, for the report. */
  notes: string[];
}

export interface ChaosStack {
  temporal: TemporalServer;
  sandbox: StartedSandbox;
  controls: SandboxControls;
  orders: OrderClient;
  worker: DropflowProcess;
  /** SIGKILL of the worker, then a new worker from the current tree. */
  killWorker(): Promise<void>;
  close(): Promise<void>;
}

export async function startStack(o: StackOptions): Promise<ChaosStack> {
  const stack = await startLocalStack({
    who: 'chaos',
    workDir: o.workDir,
    log: o.log,
    ...(o.loweredLimits !== undefined && { temporalArgs: dynamicConfigArgs(o.loweredLimits) }),
    sandbox: {
      ratePerSecond: o.ratePerSecond,
      batchRatePerSecond: o.batchRatePerSecond,
      lifecycleStepMs: o.lifecycleStepMs,
      // The webhook registration below takes a token of its own just before the workers' session
      // takes the account's: the supplier's 5-minute spacing would hold the orders that long.
      tokenIntervalSeconds: 1,
    },
  });
  const { temporal, sandbox, closers } = stack;
  try {
    const account = await SandboxControls.createAccount(sandbox.url, ACCOUNT_BALANCE);
    const controls = new SandboxControls(sandbox.url, account.openId);
    closers.push(() => controls.clearFaults());
    if (o.batchLagMs > 0 && !(await controls.settings({ batchLagMs: o.batchLagMs }))) {
      o.notes.push('batch-query lag: not applied (this sandbox has no /__sandbox/settings)');
    }
    const orders = new OrderClient(stack.client, taskQueues());
    const env: NodeJS.ProcessEnv = {
      ...stack.env,
      SUPPLIER_API_KEY: account.apiKey,
      // The coordinator continues as new below the server's lowered limits, not only at its hint.
      ...(o.loweredLimits !== undefined &&
        checkoutBudgetEnv(checkoutBudgetsUnder(o.loweredLimits))),
      SUPPLIER_RATE_PER_SECOND: String(o.ratePerSecond),
      SUPPLIER_BATCH_RATE_PER_SECOND: String(o.batchRatePerSecond),
      TRACKING_EVERY_SECONDS: String(o.trackingEverySeconds),
    };

    if (o.gateway) {
      const { gateway, url } = await gatewayProcess({
        env,
        openId: account.openId,
        logFile: join(o.workDir, 'gateway.log'),
      });
      closers.push(() => gateway.close());
      await gateway.start();
      await registerWebhooks(sandbox.url, account.apiKey, url);
    }

    const worker = workerProcess({ env, logFile: join(o.workDir, 'worker.log') });
    let restarting: Promise<void> | undefined;
    let closing = false;
    worker.onUnexpectedExit = (code, signal) => {
      if (closing) return;
      o.notes.push(`the worker exited by itself (${signal ?? code ?? '?'}) and was started again`);
      restarting = worker.start().catch((err: unknown) => {
        o.log.error({ err }, 'starting the worker again failed');
      });
    };
    closers.push(async () => {
      closing = true;
      await restarting;
      await worker.close();
    });
    await worker.start();

    return {
      temporal,
      sandbox,
      controls,
      orders,
      worker,
      async killWorker() {
        await restarting;
        await worker.kill9();
        await worker.start();
      },
      close: stack.close,
    };
  } catch (err) {
    await stack.close();
    throw err;
  }
}

/** The gateway as the account's callback for every topic, as `dropflow dev` does. */
async function registerWebhooks(
  baseUrl: string,
  apiKey: string,
  gatewayUrl: string,
): Promise<void> {
  const supplier = new SupplierClient({ baseUrl, apiKey, tokenCallIntervalMs: 1_000 });
  try {
    const callback = callbackUrlFor(gatewayUrl, { allowLocal: true });
    await waitFor('the webhook registration', () => enableWebhooks(supplier, callback), {
      timeoutMs: 20_000,
      everyMs: 1_000,
    });
  } finally {
    await supplier.close();
  }
}
