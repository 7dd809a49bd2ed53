/**
 * The processes of a chaos run: a Temporal dev server (child process, on a database file), the
 * sandbox (in this process, memory state, automatic lifecycle), the gateway and the worker
 * (`dropflow gateway` and `dropflow worker` child processes of the current tree), and a client.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { Client, Connection } from '@temporalio/client';
import { pino } from 'pino';

import { OrderClient } from '../client/orderClient.js';
import { callbackUrlFor, enableWebhooks } from '../gateway/registration.js';
import type { Logger } from '../log.js';
import { startSandbox, type StartedSandbox } from '../sandbox/server.js';
import { SupplierClient } from '../supplier/client.js';
import { dataConverterFor, EncryptionCodec } from '../temporal/encryption.js';
import { taskQueues } from '../temporal/taskQueues.js';
import { DropflowProcess } from './dropflowProcess.js';
import { checkoutBudgetEnv, checkoutBudgetsUnder } from './limits.js';
import { freePort } from './ports.js';
import { SandboxControls } from './sandboxControls.js';
import { startRunServer, type TemporalServer } from './temporalServer.js';
import { waitFor } from './wait.js';

export const NAMESPACE = 'default';
const KEY_ID = 'chaos';
/** Enough that no order of the run waits for funds. */
const ACCOUNT_BALANCE = 1_000_000;

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

/** Variables of this environment that would point the children somewhere else. */
export const FOREIGN_ENV = /^(TEMPORAL_(?!CLI_PATH)|SUPPLIER_|DROPFLOW_|GATEWAY_|CODEC_)/;

export async function startStack(o: StackOptions): Promise<ChaosStack> {
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    for (const c of closers.reverse()) {
      await c().catch((err: unknown) => {
        o.log.warn({ err }, 'stopping a part of the chaos run failed');
      });
    }
    closers.length = 0;
  };
  try {
    const temporal = await startRunServer({
      workDir: o.workDir,
      namespace: NAMESPACE,
      log: o.log,
      who: 'the chaos suite',
      ...(o.loweredLimits !== undefined && { dynamicConfig: o.loweredLimits }),
    });
    closers.push(() => temporal.stop());
    await temporal.start();

    const sandbox = await startSandbox({
      log: pino({ level: 'warn' }, pino.destination(join(o.workDir, 'sandbox.log'))),
      port: 0,
      ratePerSecond: o.ratePerSecond,
      batchRatePerSecond: o.batchRatePerSecond,
      lifecycleStepMs: o.lifecycleStepMs,
      allowLocalWebhooks: true,
      webhookRetryDelaysMs: [1_000, 3_000, 8_000],
      // The webhook registration below takes a token of its own just before the workers' session
      // takes the account's: the supplier's 5-minute spacing would hold the orders that long.
      tokenIntervalSeconds: 1,
    });
    closers.push(() => sandbox.close());
    const account = await SandboxControls.createAccount(sandbox.url, ACCOUNT_BALANCE);
    const controls = new SandboxControls(sandbox.url, account.openId);
    closers.push(() => controls.clearFaults());
    if (o.batchLagMs > 0 && !(await controls.settings({ batchLagMs: o.batchLagMs }))) {
      o.notes.push('batch-query lag: not applied (this sandbox has no /__sandbox/settings)');
    }

    const key = randomBytes(32);
    const dataConverter = dataConverterFor(new EncryptionCodec({ current: { id: KEY_ID, key } }));
    const connection = await Connection.connect({ address: temporal.address });
    closers.push(() => connection.close());
    const queues = taskQueues();
    const orders = new OrderClient(
      new Client({ connection, namespace: NAMESPACE, dataConverter }),
      queues,
    );

    const env: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !FOREIGN_ENV.test(name)),
    );
    Object.assign(env, {
      LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: NAMESPACE,
      SUPPLIER_BASE_URL: sandbox.url,
      SUPPLIER_API_KEY: account.apiKey,
      SUPPLIER_RATE_PER_SECOND: String(o.ratePerSecond),
      SUPPLIER_BATCH_RATE_PER_SECOND: String(o.batchRatePerSecond),
      TRACKING_EVERY_SECONDS: String(o.trackingEverySeconds),
      DROPFLOW_DATA_DIR: o.workDir,
      DROPFLOW_ENCRYPTION_KEY: key.toString('base64'),
      DROPFLOW_ENCRYPTION_KEY_ID: KEY_ID,
      METRICS_PORT: '0',
      // The coordinator continues as new below the server's lowered limits, not only at its hint.
      ...(o.loweredLimits !== undefined &&
        checkoutBudgetEnv(checkoutBudgetsUnder(o.loweredLimits))),
    });

    if (o.gateway) {
      const port = await freePort();
      const gateway = new DropflowProcess({
        name: 'gateway',
        args: ['gateway', '--host', '127.0.0.1', '--port', String(port), '--metrics-port', '0'],
        env: { ...env, WEBHOOK_OPEN_ID: account.openId },
        logFile: join(o.workDir, 'gateway.log'),
        ready: /^gateway: /m,
      });
      closers.push(() => gateway.close());
      await gateway.start();
      await registerWebhooks(sandbox.url, account.apiKey, `http://127.0.0.1:${port}`);
    }

    const worker = new DropflowProcess({
      name: 'worker',
      args: ['worker', '--metrics-port', '0'],
      env,
      logFile: join(o.workDir, 'worker.log'),
      ready: /^worker: polling/m,
    });
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
      close,
    };
  } catch (err) {
    await close();
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
