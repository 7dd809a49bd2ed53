/**
 * The processes of `dropflow bench orders`: one Temporal dev server (child process, on a database
 * file) and one sandbox (in this process, memory state, automatic lifecycle) for the whole run,
 * and per phase a fresh sandbox account with its own task-queue set, `dropflow gateway` registered
 * as the account's webhook callback, and a fresh `dropflow worker`.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { pino } from 'pino';

import { DropflowProcess } from '../chaos/dropflowProcess.js';
import { freePort } from '../chaos/ports.js';
import { SandboxControls } from '../chaos/sandboxControls.js';
import { FOREIGN_ENV } from '../chaos/stack.js';
import { startRunServer, type TemporalServer } from '../chaos/temporalServer.js';
import { OrderClient } from '../client/orderClient.js';
import type { Logger } from '../log.js';
import { startSandbox, type StartedSandbox } from '../sandbox/server.js';
import { dataConverterFor, EncryptionCodec } from '../temporal/encryption.js';
import { taskQueues } from '../temporal/taskQueues.js';
import { trackingSweeperId } from '../tracking/contract.js';
import { registerGateway } from './webhookRegistration.js';

const NAMESPACE = 'default';
const KEY_ID = 'bench';
/** Enough that no order of a phase waits for funds. */
const ACCOUNT_BALANCE = 1_000_000;
/** Short retries: a push the gateway missed is not what the bench measures. */
const WEBHOOK_RETRY_DELAYS_MS = [1_000, 3_000, 8_000];
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
}

export interface PhaseStack {
  openId: string;
  orders: OrderClient;
  worker: DropflowProcess;
  /** Stops the worker and gateway and ends the phase's tracking sweeper. */
  close(): Promise<void>;
}

type Closer = () => Promise<void>;

async function closeAll(closers: Closer[], log: Logger): Promise<void> {
  for (const close of closers.reverse()) {
    await close().catch((err: unknown) => {
      log.warn({ err }, 'bench: stopping a part of the run failed');
    });
  }
  closers.length = 0;
}

export async function startBenchStack(o: BenchStackOptions): Promise<BenchStack> {
  const closers: Closer[] = [];
  try {
    const temporal = await startRunServer({
      workDir: o.workDir,
      namespace: NAMESPACE,
      log: o.log,
      who: 'the bench',
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
      webhookRetryDelaysMs: WEBHOOK_RETRY_DELAYS_MS,
    });
    closers.push(() => sandbox.close());

    const key = randomBytes(32);
    const dataConverter = dataConverterFor(new EncryptionCodec({ current: { id: KEY_ID, key } }));
    const connection = await Connection.connect({ address: temporal.address });
    closers.push(() => connection.close());
    const client = new Client({ connection, namespace: NAMESPACE, dataConverter });

    const baseEnv: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !FOREIGN_ENV.test(name) && !BENCH_ENV.test(name),
      ),
    );
    Object.assign(baseEnv, {
      LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: NAMESPACE,
      SUPPLIER_BASE_URL: sandbox.url,
      DROPFLOW_DATA_DIR: o.workDir,
      DROPFLOW_ENCRYPTION_KEY: key.toString('base64'),
      DROPFLOW_ENCRYPTION_KEY_ID: KEY_ID,
      METRICS_PORT: '0',
    });

    const startPhase = (p: PhaseStackOptions) =>
      startPhaseStack(p, { workDir: o.workDir, log: o.log, sandbox, client, baseEnv });
    return { temporal, sandbox, client, startPhase, close: () => closeAll(closers, o.log) };
  } catch (err) {
    await closeAll(closers, o.log);
    throw err;
  }
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
  const closers: Closer[] = [];
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

    const port = await freePort();
    const gateway = new DropflowProcess({
      name: 'gateway',
      args: ['gateway', '--host', '127.0.0.1', '--port', String(port), '--metrics-port', '0'],
      env: { ...env, WEBHOOK_OPEN_ID: account.openId },
      logFile: join(run.workDir, `${p.prefix}-gateway.log`),
      ready: /^gateway: /m,
    });
    closers.push(() => gateway.close());
    await gateway.start();

    const worker = new DropflowProcess({
      name: 'worker',
      args: ['worker', '--metrics-port', '0'],
      env: { ...env, ...p.workerEnv },
      logFile: join(run.workDir, `${p.prefix}-worker.log`),
      ready: /^worker: polling/m,
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
      gatewayUrl: `http://127.0.0.1:${port}`,
    });

    return {
      openId: account.openId,
      orders: new OrderClient(run.client, queues),
      worker,
      close: () => closeAll(closers, run.log),
    };
  } catch (err) {
    await closeAll(closers, run.log);
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
