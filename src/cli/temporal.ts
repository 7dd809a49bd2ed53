/**
 * Connecting the command line to Temporal, in one place: the `--temporal-address`, `--namespace`
 * and `--task-queue-prefix` flags (which win over TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and
 * TEMPORAL_TASK_QUEUE_PREFIX), a client connection for the commands that talk to order workflows,
 * the NativeConnection options the worker uses, and the payload codec they all share.
 */
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { resolve } from 'node:path';

import { Client, Connection, type TLSConfig } from '@temporalio/client';
import type { NativeConnectionOptions } from '@temporalio/worker';
import type { Command } from 'commander';

import { OrderClient } from '../client/orderClient.js';
import { checkoutSettings, ConfigError, loadConfig, type Config } from '../config/environment.js';
import { checkoutOrderBoundMs } from '../checkout/contract.js';
import { dataConverterFor, type EncryptionCodec } from '../temporal/encryption.js';
import { codecFor, devKeyRing, keyRingFromConfig } from '../temporal/encryptionKeys.js';
import { taskQueues, type TaskQueues } from '../temporal/taskQueues.js';
import { startTracing, tracingClientOptions } from '../temporal/tracing.js';
import { DEV_STATE_FILE, readDevState } from './devState.js';

export interface TemporalFlags {
  temporalAddress?: string;
  namespace?: string;
  taskQueuePrefix?: string;
}

export interface TemporalTarget {
  address: string;
  namespace: string;
  queues: TaskQueues;
  /** Temporal Cloud API key (TLS on); never printed. */
  apiKey: string | undefined;
  /** mTLS (client certificate), or plain TLS with a private CA; undefined: see apiKey. */
  tls: TLSConfig | undefined;
  /** Where the address came from: a flag, TEMPORAL_ADDRESS, a running `dropflow dev`, the default. */
  source: 'flag' | 'environment' | 'dev' | 'default';
}

/** Adds the Temporal flags to a command; `queues` adds `--task-queue-prefix` too. */
export function temporalOptions(command: Command, { queues = false } = {}): Command {
  command
    .option(
      '--temporal-address <host:port>',
      'Temporal frontend (env TEMPORAL_ADDRESS; default: the running `dropflow dev`, else localhost:7233)',
    )
    .option('--namespace <name>', 'Temporal namespace (env TEMPORAL_NAMESPACE, default default)');
  if (queues) {
    command.option(
      '--task-queue-prefix <prefix>',
      "the supplier account's task-queue set (env TEMPORAL_TASK_QUEUE_PREFIX, default none)",
    );
  }
  return command;
}

/**
 * Flags first, then the environment; with neither address, the `dropflow dev` running on
 * DROPFLOW_DATA_DIR (its dev.json) gives the address, and the namespace and task-queue prefix
 * unless they are given; otherwise the defaults.
 */
export function temporalTarget(
  flags: TemporalFlags,
  config: Config = loadConfig(),
  env: NodeJS.ProcessEnv = process.env,
): TemporalTarget {
  const set = (name: string) => (env[name] ?? '') !== '';
  const dev =
    flags.temporalAddress === undefined && !set('TEMPORAL_ADDRESS')
      ? readDevState(resolve(config.DROPFLOW_DATA_DIR))?.temporal
      : undefined;
  return {
    address: flags.temporalAddress ?? dev?.address ?? config.TEMPORAL_ADDRESS,
    namespace:
      flags.namespace ??
      (set('TEMPORAL_NAMESPACE') ? undefined : dev?.namespace) ??
      config.TEMPORAL_NAMESPACE,
    queues: taskQueues(
      flags.taskQueuePrefix ??
        (set('TEMPORAL_TASK_QUEUE_PREFIX') ? undefined : dev?.taskQueuePrefix) ??
        config.TEMPORAL_TASK_QUEUE_PREFIX,
    ),
    apiKey: config.TEMPORAL_API_KEY,
    tls: tlsConfig(config),
    source:
      flags.temporalAddress !== undefined
        ? 'flag'
        : set('TEMPORAL_ADDRESS')
          ? 'environment'
          : dev !== undefined
            ? 'dev'
            : 'default',
  };
}

/** The TLS settings from TEMPORAL_TLS_* (files read here, so a wrong path fails at start). */
function tlsConfig(config: Config): TLSConfig | undefined {
  const { TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key, TEMPORAL_TLS_CA: ca } = config;
  if ((cert === undefined) !== (key === undefined)) {
    throw new ConfigError(
      'invalid environment: TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together',
    );
  }
  if (cert === undefined && ca === undefined) return undefined;
  return {
    ...(cert !== undefined &&
      key !== undefined && { clientCertPair: { crt: readFileSync(cert), key: readFileSync(key) } }),
    ...(ca !== undefined && { serverRootCACertificate: readFileSync(ca) }),
    ...(config.TEMPORAL_TLS_SERVER_NAME !== undefined && {
      serverNameOverride: config.TEMPORAL_TLS_SERVER_NAME,
    }),
  };
}

/** API key and TLS options, the same for the client's and the worker's connections. */
function security(target: TemporalTarget): { apiKey?: string; tls?: TLSConfig | true } {
  return {
    ...(target.apiKey !== undefined && { apiKey: target.apiKey }),
    ...(target.tls !== undefined
      ? { tls: target.tls }
      : target.apiKey !== undefined && { tls: true as const }),
  };
}

/** What `NativeConnection.connect` needs besides the address (the worker's connection). */
export function nativeConnectionOptions(
  target: TemporalTarget,
): Omit<NativeConnectionOptions, 'address'> {
  return security(target);
}

/**
 * The payload codec of the command line: the configured keys (DROPFLOW_ENCRYPTION_KEY, …); without
 * them the key `dropflow dev` keeps in DROPFLOW_DATA_DIR, when there is one (so commands next to a
 * running `dropflow dev` read its orders); otherwise none, payloads in clear.
 */
export async function cliPayloadCodec(
  config: Config = loadConfig(),
): Promise<EncryptionCodec | undefined> {
  return codecFor(
    keyRingFromConfig(config) ?? (await devKeyRing(resolve(config.DROPFLOW_DATA_DIR))),
  );
}

/** Adds `--insecure` to a command that keeps payloads in Temporal (`worker`, `gateway`). */
export function insecureOption(command: Command): Command {
  return command.option(
    '--insecure',
    'start without an encryption key: orders, addresses and supplier tokens stored in Temporal in clear (never in production)',
    false,
  );
}

/**
 * The payload codec of a process that serves orders (`dropflow worker`, `dropflow gateway`): the
 * configured keys, or the dev key beside a `dropflow dev`. Without one it refuses to start unless
 * the operator wrote `--insecure` in its command: every order, address and supplier token would
 * sit in Temporal's history in clear. A flag and not a variable: a variable is inherited and
 * copied from one environment to the next unseen, a flag stands in each service's command.
 */
export async function requirePayloadCodec(
  config: Config,
  command: string,
  insecure: boolean,
): Promise<EncryptionCodec | undefined> {
  const codec = await cliPayloadCodec(config);
  if (codec === undefined && !insecure) {
    throw new ConfigError(
      `refusing to start \`dropflow ${command}\` without an encryption key: set DROPFLOW_ENCRYPTION_KEY ` +
        '(base64 of 32 random bytes: `openssl rand -base64 32`, the same for every worker and gateway), ' +
        'or pass --insecure to store orders, addresses and supplier tokens in Temporal in clear',
    );
  }
  return codec;
}

export interface TemporalClient {
  client: Client;
  orders: OrderClient;
  target: TemporalTarget;
  /** The codec the client encrypts payloads with; undefined: payloads in clear. */
  codec: EncryptionCodec | undefined;
  close(): Promise<void>;
}

export async function connectTemporal(flags: TemporalFlags): Promise<TemporalClient> {
  const config = loadConfig();
  const target = temporalTarget(flags, config);
  const codec = await cliPayloadCodec(config);
  const connection = await connectOrExplain(target);
  // The commands' own Temporal calls are traced when OTLP is configured (docs/tracing.md); the
  // worker and the gateway started theirs under their own names already.
  startTracing({ service: 'dropflow-cli' });
  const client = new Client({
    connection,
    namespace: target.namespace,
    dataConverter: dataConverterFor(codec),
    ...tracingClientOptions(),
  });
  return {
    client,
    orders: new OrderClient(client, target.queues, {
      answerWithinMs: config.ANSWER_TIMEOUT_SECONDS * 1000,
      marginDefault: config.MARGIN_RULE,
      checkoutBoundMs: checkoutOrderBoundMs(
        checkoutSettings(config),
        config.CHECKOUT_ORDER_BOUND_MS,
      ),
    }),
    target,
    codec,
    close: () => connection.close(),
  };
}

/** Temporal cannot be reached where the command looked for it; the message names where. */
export class TemporalUnreachableError extends Error {
  override readonly name = 'TemporalUnreachableError';
  readonly code = 'TEMPORAL_UNREACHABLE';
}

const PROBE_MS = 5_000;

/**
 * Connects, or fails with the address, the namespace and the reason. Nothing listening is found
 * out with one TCP connection at once, rather than after the SDK's 10 s of retries.
 */
export async function connectOrExplain(target: TemporalTarget): Promise<Connection> {
  const unreachable = (reason: string) => {
    const hint =
      target.source === 'default'
        ? '; is `dropflow dev` running? Otherwise give --temporal-address or TEMPORAL_ADDRESS'
        : target.source === 'dev'
          ? `; the address of the \`dropflow dev\` that wrote ${DEV_STATE_FILE} in DROPFLOW_DATA_DIR`
          : '';
    return new TemporalUnreachableError(
      `cannot reach Temporal at ${target.address} (namespace ${target.namespace}): ${reason}${hint}`,
    );
  };
  const reason = await probe(target.address);
  if (reason !== undefined) throw unreachable(reason);
  try {
    return await Connection.connect({ address: target.address, ...security(target) });
  } catch (err) {
    throw unreachable(connectFailure(err));
  }
}

/** Why a TCP connection to `host:port` fails, or undefined when it opens (or cannot be tried). */
async function probe(address: string): Promise<string | undefined> {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address);
  if (match === null) return undefined;
  const [, host, port] = match as unknown as [string, string, string];
  return new Promise((settle) => {
    const socket = createConnection({ host, port: Number(port) });
    const done = (reason: string | undefined) => {
      socket.destroy();
      settle(reason);
    };
    socket.setTimeout(PROBE_MS, () => {
      done(`no answer within ${PROBE_MS / 1000} s`);
    });
    socket.once('connect', () => {
      done(undefined);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const known: Record<string, string> = {
        ECONNREFUSED: 'connection refused (nothing listens there)',
        ENOTFOUND: `unknown host ${host}`,
        EAI_AGAIN: `host ${host} cannot be resolved now`,
        EHOSTUNREACH: 'host unreachable',
        ENETUNREACH: 'network unreachable',
      };
      done(known[err.code ?? ''] ?? err.message);
    });
  });
}

/** The SDK's reason, without its wrapping ("Failed to connect to Temporal server"). */
function connectFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause;
  if (cause instanceof Error) {
    const details = (cause as Error & { details?: unknown }).details;
    return typeof details === 'string' && details !== '' ? details : cause.message;
  }
  return err.message;
}

/** Runs `fn` with an OrderClient and closes the connection afterwards, whatever happens. */
export async function withOrders<T>(
  flags: TemporalFlags,
  fn: (orders: OrderClient) => Promise<T>,
): Promise<T> {
  const temporal = await connectTemporal(flags);
  try {
    return await fn(temporal.orders);
  } finally {
    await temporal.close();
  }
}
