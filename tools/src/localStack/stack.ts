/**
 * The local stack the chaos suite and the bench both build on: a Temporal dev server of the run's
 * own (child process, database file in the run's directory), the sandbox (memory state, local
 * webhooks) in this process or, with `sandboxApart`, in a `dropflow sandbox` process of its own, a
 * client with a payload key made for the run, and the environment that points `dropflow worker`
 * and `dropflow gateway` child processes of the current tree at them.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { Client, Connection } from '@temporalio/client';
import { pino } from 'pino';

import type { Logger } from 'dropflow/log';
import { dataConverterFor, EncryptionCodec } from 'dropflow/temporal';
import { startSandbox, type StartedSandbox, type StartSandboxOptions } from '../sandbox/server.js';
import { DropflowProcess } from './dropflowProcess.js';
import { freePort } from './ports.js';
import { startRunServer, type TemporalServer } from './temporalServer.js';

export const NAMESPACE = 'default';
/** Enough that no order of a run waits for funds. */
export const ACCOUNT_BALANCE = 1_000_000;
/** Short retries: a push the gateway missed is not what a run measures. */
const WEBHOOK_RETRY_DELAYS_MS = [1_000, 3_000, 8_000];

/**
 * Variables of this environment that would point the children somewhere else, or make them other
 * than a user runs them (a heap set by hand).
 */
export const FOREIGN_ENV =
  /^(TEMPORAL_(?!CLI_PATH)|SUPPLIER_|DROPFLOW_|GATEWAY_|CODEC_|ACCOUNTS_FILE$|NODE_OPTIONS$)/;

export interface LocalStackOptions {
  /** `chaos`, `bench`: names the payload key, the errors and the log lines. */
  who: string;
  workDir: string;
  log: Logger;
  /** More `temporal server start-dev` arguments (chaos's lowered limits). */
  temporalArgs?: readonly string[];
  sandbox: Pick<
    StartSandboxOptions,
    'ratePerSecond' | 'batchRatePerSecond' | 'lifecycleStepMs' | 'tokenIntervalSeconds'
  >;
  /** More of this environment the children do not inherit, beside FOREIGN_ENV. */
  withheldEnv?: RegExp;
  /**
   * The sandbox in a process of its own, as the supplier is: its clock (request times, the rate
   * it counts) then does not stop when this process is busy. Webhook retries keep its defaults.
   */
  sandboxApart?: boolean;
}

/** A sandbox in a process of its own: reached only over HTTP. */
export interface ApartSandbox {
  url: string;
  close(): Promise<void>;
}

export interface LocalStack<S extends ApartSandbox = StartedSandbox> {
  temporal: TemporalServer;
  sandbox: S;
  /** A client with the workers' payload key. */
  client: Client;
  /** The children's environment: Temporal, the sandbox, the payload key, the data directory. */
  env: NodeJS.ProcessEnv;
  /** Stopped by `close`, last pushed first. */
  closers: Closers;
  close: () => Promise<void>;
}

/** What a run has started, to stop in reverse order; a failure to stop one does not stop the rest. */
export class Closers {
  private readonly list: (() => Promise<void>)[] = [];

  constructor(
    private readonly who: string,
    private readonly log: Logger,
  ) {}

  push(close: () => Promise<void>): void {
    this.list.push(close);
  }

  async closeAll(): Promise<void> {
    for (const close of this.list.reverse()) {
      await close().catch((err: unknown) => {
        this.log.warn({ err }, `${this.who}: stopping a part of the run failed`);
      });
    }
    this.list.length = 0;
  }
}

export function startLocalStack(
  o: LocalStackOptions & { sandboxApart: true },
): Promise<LocalStack<ApartSandbox>>;
export function startLocalStack(o: LocalStackOptions): Promise<LocalStack>;
export async function startLocalStack(
  o: LocalStackOptions,
): Promise<LocalStack | LocalStack<ApartSandbox>> {
  const closers = new Closers(o.who, o.log);
  try {
    const temporal = await startRunServer({
      workDir: o.workDir,
      namespace: NAMESPACE,
      log: o.log,
      who: `the ${o.who} run`,
      ...(o.temporalArgs !== undefined && { extraArgs: o.temporalArgs }),
    });
    closers.push(() => temporal.stop());
    await temporal.start();

    const env: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !FOREIGN_ENV.test(name) && o.withheldEnv?.test(name) !== true,
      ),
    );
    env['LOG_LEVEL'] = process.env['LOG_LEVEL'] ?? 'warn';
    const sandbox = o.sandboxApart
      ? await sandboxProcess(o, env)
      : await startSandbox({
          ...o.sandbox,
          log: pino({ level: 'warn' }, pino.destination(join(o.workDir, 'sandbox.log'))),
          port: 0,
          allowLocalWebhooks: true,
          webhookRetryDelaysMs: WEBHOOK_RETRY_DELAYS_MS,
        });
    closers.push(() => sandbox.close());

    const key = randomBytes(32);
    // Beside the run's databases (a private directory, gone unless kept): a kept run stays readable.
    await writeFile(join(o.workDir, 'encryption.key'), key.toString('base64'), { mode: 0o600 });
    const dataConverter = dataConverterFor(new EncryptionCodec({ current: { id: o.who, key } }));
    const connection = await Connection.connect({ address: temporal.address });
    closers.push(() => connection.close());
    const client = new Client({ connection, namespace: NAMESPACE, dataConverter });

    Object.assign(env, {
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: NAMESPACE,
      SUPPLIER_BASE_URL: sandbox.url,
      DROPFLOW_DATA_DIR: o.workDir,
      DROPFLOW_ENCRYPTION_KEY: key.toString('base64'),
      DROPFLOW_ENCRYPTION_KEY_ID: o.who,
      METRICS_PORT: '0',
    });
    return { temporal, sandbox, client, env, closers, close: () => closers.closeAll() };
  } catch (err) {
    await closers.closeAll();
    throw err;
  }
}

/** `dropflow sandbox` in memory on a free loopback port, with the stack's sandbox options. */
async function sandboxProcess(o: LocalStackOptions, env: NodeJS.ProcessEnv): Promise<ApartSandbox> {
  const port = await freePort();
  const { ratePerSecond, batchRatePerSecond, lifecycleStepMs, tokenIntervalSeconds } = o.sandbox;
  const flag = (name: string, value: number | undefined) =>
    value === undefined ? [] : [name, String(value)];
  const sandbox = new DropflowProcess({
    name: 'sandbox',
    args: [
      'sandbox',
      '--memory',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--allow-local-webhooks',
      ...flag('--rate', ratePerSecond),
      ...flag('--batch-rate', batchRatePerSecond),
      ...flag('--lifecycle-ms', lifecycleStepMs),
      ...flag('--token-interval-s', tokenIntervalSeconds),
    ],
    env,
    logFile: join(o.workDir, 'sandbox.log'),
    ready: /^sandbox: /m,
  });
  await sandbox.start();
  return { url: `http://127.0.0.1:${port}`, close: () => sandbox.close() };
}

/** `dropflow gateway` on a free loopback port, taking the webhooks of account `openId`. */
export async function gatewayProcess(o: {
  env: NodeJS.ProcessEnv;
  openId: string;
  logFile: string;
}): Promise<{ gateway: DropflowProcess; url: string }> {
  const port = await freePort();
  const gateway = new DropflowProcess({
    name: 'gateway',
    args: ['gateway', '--host', '127.0.0.1', '--port', String(port), '--metrics-port', '0'],
    env: { ...o.env, WEBHOOK_OPEN_ID: o.openId },
    logFile: o.logFile,
    ready: /^gateway: /m,
  });
  return { gateway, url: `http://127.0.0.1:${port}` };
}

/** `dropflow worker`, ready once it polls. */
export function workerProcess(o: { env: NodeJS.ProcessEnv; logFile: string }): DropflowProcess {
  return new DropflowProcess({
    name: 'worker',
    args: ['worker', '--metrics-port', '0'],
    env: o.env,
    logFile: o.logFile,
    ready: /^worker: polling/m,
  });
}
