/**
 * The processes of `dropflow bench orders`, on the local stack (../localStack/stack.ts): one
 * Temporal dev server (child process, on a database file) and one sandbox (in this process, memory
 * state, automatic lifecycle) for the whole run, and per phase a fresh sandbox account with its
 * own task-queue set, `dropflow gateway` registered as the account's webhook callback, and a fresh
 * `dropflow worker`; with a store platform, also a store double the account is connected to
 * (./benchStore.ts).
 */
import { join } from 'node:path';

import { WorkflowNotFoundError, type Client } from '@temporalio/client';

import { OrderClient } from 'dropflow/client';
import type { Logger } from 'dropflow/log';
import { taskQueues } from 'dropflow/temporal';
import { trackingSweeperId } from 'dropflow/contracts/tracking';
import type { DropflowProcess } from '../localStack/dropflowProcess.js';
import { SandboxControls } from '../localStack/sandboxControls.js';
import {
  ACCOUNT_BALANCE,
  Closers,
  gatewayProcess,
  startLocalStack,
  workerProcess,
} from '../localStack/stack.js';
import type { TemporalServer } from '../localStack/temporalServer.js';
import type { StartedSandbox } from '../sandbox/server.js';
import { startPhaseStore, type PhaseStore } from './benchStore.js';
import type { BenchStorePlatform } from './storeFigures.js';
import { registerGateway } from './webhookRegistration.js';

/** Settings the bench gives the children itself; the caller's environment does not decide them. */
const BENCH_ENV = /^(CHECKOUT_|TRACKING_EVERY_SECONDS$|REPLAY_CHECK_LIMIT$|METRICS_PORT$)/;

export interface BenchStackOptions {
  workDir: string;
  ratePerSecond: number;
  batchRatePerSecond: number;
  lifecycleStepMs: number;
  log: Logger;
}

export interface BenchStack {
  temporal: TemporalServer;
  sandbox: StartedSandbox;
  /** A client with the workers' payload key. */
  client: Client;
  startPhase(o: PhaseStackOptions): Promise<PhaseStack>;
  close(): Promise<void>;
}

export interface PhaseStackOptions {
  /** Names the phase's task-queue set, tracking sweeper and log files. */
  prefix: string;
  ratePerSecond: number;
  batchRatePerSecond: number;
  trackingEverySeconds: number;
  /** More environment for the worker (the checkout batching switch and tuning). */
  workerEnv: Record<string, string>;
  /** Orders come from a store double of this platform, connected as `prefix`. */
  store?: BenchStorePlatform;
}

export interface PhaseStack {
  openId: string;
  orders: OrderClient;
  worker: DropflowProcess;
  store: PhaseStore | undefined;
  /** Stops the worker and gateway and ends the phase's tracking sweeper. */
  close(): Promise<void>;
}

export async function startBenchStack(o: BenchStackOptions): Promise<BenchStack> {
  const stack = await startLocalStack({
    who: 'bench',
    workDir: o.workDir,
    log: o.log,
    sandbox: {
      ratePerSecond: o.ratePerSecond,
      batchRatePerSecond: o.batchRatePerSecond,
      lifecycleStepMs: o.lifecycleStepMs,
    },
    withheldEnv: BENCH_ENV,
  });
  const { temporal, sandbox, client } = stack;
  const startPhase = (p: PhaseStackOptions) =>
    startPhaseStack(p, { workDir: o.workDir, log: o.log, sandbox, client, baseEnv: stack.env });
  return { temporal, sandbox, client, startPhase, close: stack.close };
}

async function startPhaseStack(
  p: PhaseStackOptions,
  run: {
    workDir: string;
    log: Logger;
    sandbox: StartedSandbox;
    client: Client;
    baseEnv: NodeJS.ProcessEnv;
  },
): Promise<PhaseStack> {
  const closers = new Closers('bench', run.log);
  try {
    const account = await SandboxControls.createAccount(run.sandbox.url, ACCOUNT_BALANCE);
    const queues = taskQueues(p.prefix);
    const env: NodeJS.ProcessEnv = {
      ...run.baseEnv,
      TEMPORAL_TASK_QUEUE_PREFIX: p.prefix,
      SUPPLIER_API_KEY: account.apiKey,
      SUPPLIER_RATE_PER_SECOND: String(p.ratePerSecond),
      SUPPLIER_BATCH_RATE_PER_SECOND: String(p.batchRatePerSecond),
      TRACKING_EVERY_SECONDS: String(p.trackingEverySeconds),
    };

    const { gateway, url: gatewayUrl } = await gatewayProcess({
      env,
      openId: account.openId,
      logFile: join(run.workDir, `${p.prefix}-gateway.log`),
    });
    closers.push(() => gateway.close());
    // Before the gateway and the worker start: they read the connection from the registry file.
    const store =
      p.store === undefined
        ? undefined
        : await startPhaseStore(p.store, { connection: p.prefix, env, gatewayUrl });
    if (store !== undefined) closers.push(() => store.close());
    await gateway.start();

    const worker = workerProcess({
      env: { ...env, ...p.workerEnv },
      logFile: join(run.workDir, `${p.prefix}-worker.log`),
    });
    closers.push(() => worker.close());
    // Ended before the worker stops: its next sweep would find no worker.
    closers.push(() => endSweeper(run.client, trackingSweeperId(p.prefix)));
    await worker.start();
    // After the worker: the account's session, which gives the token, runs on it.
    await registerGateway({
      client: run.client,
      queues,
      baseUrl: run.sandbox.url,
      apiKey: account.apiKey,
      gatewayUrl,
    });

    return {
      openId: account.openId,
      orders: new OrderClient(run.client, queues),
      worker,
      store,
      close: () => closers.closeAll(),
    };
  } catch (err) {
    await closers.closeAll();
    throw err;
  }
}

async function endSweeper(client: Client, workflowId: string): Promise<void> {
  try {
    await client.workflow.getHandle(workflowId).terminate('the bench phase is over');
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}
