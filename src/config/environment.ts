/**
 * The environment dropflow reads, validated once. Every port is also a command-line flag; flags
 * win over the environment. Secrets (SUPPLIER_API_KEY, the encryption keys) are never logged, and
 * a bad one is reported by its variable's name and rule, never by its value.
 */
import { join } from 'node:path';

import { z } from 'zod';

import {
  type StoreEventsOptions,
  parseStoreSecrets,
  STORE_SECRET_RULE,
  StoreSecretError,
} from '../terms/storeEventsSettings.js';
import { isOutboundUrl, OUTBOUND_URL_RULE } from '../net/outboundUrl.js';
import { DEFAULT_CHECKOUT_BUDGETS, type CheckoutSettings } from '../terms/checkoutSettings.js';
import { SlaDurations } from '../terms/sla.js';
import { MarginRule } from '../terms/margin.js';

const port = z.coerce.number().int().min(0).max(65_535);

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const keyIdRule = 'must be 1 to 64 letters, digits, ".", "_" or "-"';
const keyRule = 'must be the base64 of 32 random bytes (e.g. `openssl rand -base64 32`)';
const isAesKey = (value: string): boolean =>
  z.base64().safeParse(value).success && Buffer.from(value, 'base64').length === 32;

/** A setting given as JSON text, checked by `schema` once parsed. */
function jsonSetting<T extends z.ZodType>(example: string, schema: T) {
  return z
    .string()
    .transform((text, ctx): unknown => {
      try {
        return JSON.parse(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: `must be JSON, such as ${example}` });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

// Visibility names a version `<deployment>:<buildId>`: neither may hold the separators.
const DEPLOYMENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const deploymentNameRule = 'must be 1 to 64 letters, digits, "_" or "-"';
const BUILD_ID = /^[A-Za-z0-9._-]{1,128}$/;
const buildIdRule = 'must be 1 to 128 letters, digits, ".", "_" or "-"';

const aesKey = z.string().refine(isAesKey, { error: keyRule });

/** `id=base64,id=base64`: the keys earlier payloads were encrypted with. */
const keyList = z.string().transform((value, ctx) => {
  const keys: { id: string; key: string }[] = [];
  for (const [i, entry] of value.split(',').entries()) {
    const at = entry.indexOf('=');
    const id = entry.slice(0, Math.max(at, 0)).trim();
    const key = entry.slice(at + 1).trim();
    if (at < 1 || !KEY_ID.test(id) || !isAesKey(key)) {
      ctx.addIssue({
        code: 'custom',
        message:
          `entry ${i + 1} must be id=key: an id of 1 to 64 letters, digits, ".", "_" or "-", ` +
          'and the base64 of 32 random bytes',
      });
      return z.NEVER;
    }
    keys.push({ id, key });
  }
  return keys;
});

/** `whsec_<base64>`, several space-separated while rotating; the error says the rule only. */
const storeSecret = z.string().superRefine((value, ctx) => {
  try {
    parseStoreSecrets(value);
  } catch (err) {
    if (!(err instanceof StoreSecretError)) throw err;
    ctx.addIssue({ code: 'custom', message: err.message });
  }
});

/** Comma-separated origins (`scheme://host[:port]`, no path). */
const originList = z.string().transform((value, ctx) => {
  const origins: string[] = [];
  for (const entry of value.split(',')) {
    const origin = entry.trim();
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      ctx.addIssue({
        code: 'custom',
        message: `"${origin}" is not an origin like https://temporal-ui.example.com`,
      });
      return z.NEVER;
    }
    origins.push(origin);
  }
  return origins;
});

/** A URL dropflow calls out to, with secrets or signed data: https, or plain http to loopback. */
const outbound = z.string().refine(isOutboundUrl, { error: OUTBOUND_URL_RULE });

/** An http(s) URL; empty counts as unset (compose files pass unset variables on as empty). */
const optionalUrl = z.preprocess(
  (value) => (value === '' ? undefined : value),
  z.url({ protocol: /^https?$/ }).optional(),
);

export const Env = z.object({
  /** State of `dropflow dev`: Temporal's database and the sandbox's state. */
  DROPFLOW_DATA_DIR: z.string().min(1).default('.dropflow'),
  /**
   * The supplier account registry (docs/accounts.md): a JSON file that `dropflow account` writes
   * and every worker and gateway re-reads when it changes. Default `<DROPFLOW_DATA_DIR>/accounts.json`.
   */
  ACCOUNTS_FILE: z.string().min(1).optional(),
  /** The supplier; unset means the local sandbox. */
  SUPPLIER_BASE_URL: outbound.optional(),
  SUPPLIER_API_KEY: z.string().min(1).max(200).optional(),
  /** The account's general request rate (tier: 1, 2, 4 or 6 per second). */
  SUPPLIER_RATE_PER_SECOND: z.coerce.number().positive().default(1),
  /** The batch order query and proof-of-delivery rate. */
  SUPPLIER_BATCH_RATE_PER_SECOND: z.coerce.number().positive().default(2),
  /**
   * `<index>/<processes>` (0-based): this worker's share of a fleet of several that call the
   * supplier for the same accounts. Each sends only in its own slots of each account's wall-clock
   * grid (supplier/pacer.ts), so the fleet never puts more than the tier into any second. Unset:
   * the only process (`0/1`).
   */
  SUPPLIER_FLEET_SHARE: z
    .string()
    .regex(/^\d+\/[1-9]\d*$/, 'must be <index>/<processes>, e.g. 0/2')
    .transform((v) => {
      const [index, of] = v.split('/').map(Number) as [number, number];
      return { index, of };
    })
    .refine((s) => s.index < s.of, 'the index must be below the number of processes')
    .optional(),
  /**
   * Checkout batching: orders of the account are carted, confirmed and paid together (on), or
   * one by one (off). A batch closes when no order joined for CHECKOUT_QUIET_MS, when its first
   * order waited CHECKOUT_MAX_WAIT_MS, or at CHECKOUT_MAX_BATCH orders.
   */
  CHECKOUT_BATCHING: z.enum(['on', 'off']).default('on'),
  CHECKOUT_QUIET_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  CHECKOUT_MAX_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  // At most 100: a batch's look-ups ask for all its orders in one call of 100 ids at most.
  CHECKOUT_MAX_BATCH: z.coerce.number().int().min(1).max(100).default(50),
  /**
   * How long an order waits on its checkout coordinator before asking it where it holds the order
   * (default: twice CHECKOUT_MAX_WAIT_MS, at least 5 minutes).
   */
  CHECKOUT_ORDER_BOUND_MS: z.coerce.number().int().min(1_000).max(86_400_000).optional(),
  /**
   * The checkout coordinator's budgets per run: it continues as new once a run received
   * CHECKOUT_SIGNALS_PER_RUN signals or holds CHECKOUT_HISTORY_PER_RUN events, and tells at
   * most CHECKOUT_OUTCOMES_IN_FLIGHT outcomes per activity call (runs from before that activity:
   * signals at most that many at once). Keep them well below the Temporal
   * cluster's limits (by default 10,000 signals per run, 51,200 events, 2,000 pending signals):
   * a full run still takes signals while it drains.
   */
  CHECKOUT_SIGNALS_PER_RUN: z.coerce
    .number()
    .int()
    .min(10)
    .max(9_000)
    .default(DEFAULT_CHECKOUT_BUDGETS.signalsPerRun),
  CHECKOUT_HISTORY_PER_RUN: z.coerce
    .number()
    .int()
    .min(100)
    .max(45_000)
    .default(DEFAULT_CHECKOUT_BUDGETS.historyPerRun),
  CHECKOUT_OUTCOMES_IN_FLIGHT: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_800)
    .default(DEFAULT_CHECKOUT_BUDGETS.outcomesInFlight),
  /** Minutes between balance reads while orders wait for funds (one read for all of them). */
  FUNDS_CHECK_MINUTES: z.coerce.number().positive().max(1_440).default(30),
  /** Seconds between tracking sweeps of one supplier account (its long-running sweeper). */
  TRACKING_EVERY_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /**
   * Hours an order's supplier status may stay the same (paid and not shipped, or shipped and not
   * delivered) before the sweeper flags the order for a person (default 14 days).
   */
  TRACKING_STALE_AFTER_HOURS: z.coerce.number().positive().max(8_760).default(336),
  /** Minutes the supplier may not list a paid order (over 2 sweeps at least) before it is flagged. */
  TRACKING_MISSING_AFTER_MINUTES: z.coerce.number().positive().max(43_200).default(60),
  /**
   * The gateway's public HTTPS address (as `webhooks register --base-url`): with it each account's
   * sweeper registers the webhooks again when pushes stop (docs/webhook-health.md).
   */
  WEBHOOK_BASE_URL: z.url({ protocol: /^https$/, error: 'must be an https URL' }).optional(),
  /** Seconds news may reach orders only through sweeps before the webhooks are repaired. */
  WEBHOOK_GAP_SECONDS: z.coerce.number().int().min(10).max(86_400).default(600),
  /** The least seconds between two repairs (doubling while they do not help, up to a day). */
  WEBHOOK_REGISTER_EVERY_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  /** Seconds between sweeps during a webhook gap (at most TRACKING_EVERY_SECONDS). */
  WEBHOOK_REPAIR_EVERY_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30),
  /**
   * Minutes an order may find no access token for its account before it stops at NEEDS_ATTENTION
   * (it keeps waiting there, and goes on by itself once a token is back); a refused key stops it
   * at once.
   */
  NO_TOKEN_ATTENTION_MINUTES: z.coerce.number().positive().max(1_440).default(10),
  /**
   * Workflows a worker keeps in memory between their tasks (each about 0.4 MiB); one not kept
   * is replayed from its history at its next task. The SDK's default grows with the heap (over
   * 2,000 on a 4 GiB heap), which a sale-day backlog fills. Unset: sized from the worker's heap
   * (temporal/workerSizing.ts).
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2).max(100_000).optional(),
  /**
   * Workflow tasks a worker takes at once. Workflow code runs on one thread: a task taken waits
   * for the ones before it, and one that waits 10 s times out. Tasks not taken wait on the server,
   * which hands them out by priority and account. Unset: sized from the worker's heap, at most 10.
   */
  WORKER_WORKFLOW_TASK_SLOTS: z.coerce.number().int().min(2).max(1_000).optional(),
  /** Supplier activities a worker runs at once. Unset: sized from the worker's heap, at most 100. */
  WORKER_ACTIVITY_SLOTS: z.coerce.number().int().min(1).max(1_000).optional(),
  SANDBOX_PORT: port.default(8787),
  SANDBOX_API_KEY: z.string().min(1).max(200).default('sandbox'),
  TEMPORAL_ADDRESS: z.string().min(1).default('localhost:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /** Temporal Cloud API key; turns on TLS. Never logged. */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** mTLS to a cluster or Temporal Cloud: client certificate and key (PEM files). */
  TEMPORAL_TLS_CERT: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY: z.string().min(1).optional(),
  /** The server's CA (PEM file), when it is not a public one; and the name its certificate has. */
  TEMPORAL_TLS_CA: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  /** The task-queue set of this supplier account (`<prefix>/supplier-api`, …); empty: none. */
  TEMPORAL_TASK_QUEUE_PREFIX: z.string().default(''),
  /**
   * How long a command waits for an order's workflow to answer (`status`, the actions) before it
   * gives up and says why: no worker runs it, or its workflow task keeps failing.
   */
  ANSWER_TIMEOUT_SECONDS: z.coerce.number().positive().max(3_600).default(30),
  TEMPORAL_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  GATEWAY_PORT: port.default(8080),
  /**
   * Address `dropflow gateway` listens on: loopback unless the operator opts in (`0.0.0.0`, as
   * docker-compose.yml and deploy/k8s do, for a reverse proxy that terminates TLS before it).
   */
  GATEWAY_HOST: z.string().min(1).default('127.0.0.1'),
  /** Bearer token of the order intake (`POST /v1/orders`); unset: intake answers 401. Never logged. */
  GATEWAY_TOKEN: z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
  /**
   * The intake's rate limits (docs/configuration.md, "Intake limits"): requests per window per
   * bearer token and per account; unset: the gateway's defaults (600 and 1200 per 60 s).
   */
  INTAKE_RATE_PER_TOKEN: z.coerce.number().int().min(1).optional(),
  INTAKE_RATE_PER_ACCOUNT: z.coerce.number().int().min(1).optional(),
  INTAKE_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3_600).optional(),
  /**
   * The webhook signing key (the account's openId). Unset: learned from the supplier's token
   * response with SUPPLIER_API_KEY. Never logged.
   */
  WEBHOOK_OPEN_ID: z.string().min(1).optional(),
  /** Upstream address that product, variant and stock webhook events are forwarded to (worker). */
  CATALOGUE_EVENTS_URL: outbound.optional(),
  /**
   * The store's margin rule, JSON (`{"minPercent":20}`, `{"minUsd":5}` or
   * `{"maxLandedCostUsd":40}`), for orders submitted without `fulfillment.margin`
   * (docs/margin-guard.md); a margin rule applies only to orders with a salePrice on every line.
   */
  MARGIN_RULE: jsonSetting('{"minPercent":20}', MarginRule).optional(),
  /** Where order and dispute events are POSTed, signed (worker); unset: none are sent. */
  STORE_EVENTS_URL: outbound.optional(),
  /**
   * The default account's deadlines for its orders (docs/delivery-promises.md), as JSON:
   * `{"paidWithin":"PT48H","shippedWithin":"P3D"}`. Other accounts: their registry record's `sla`.
   */
  ORDER_SLA: jsonSetting('{"paidWithin":"PT48H"}', SlaDurations).optional(),
  /** The store events' signing secret(s): required with STORE_EVENTS_URL. Never logged. */
  STORE_EVENTS_SECRET: storeSecret.optional(),
  STORE_EVENTS_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(10_000),
  /** A failed delivery waits this long, doubling per attempt up to the maximum. */
  STORE_EVENTS_RETRY_FIRST_SECONDS: z.coerce.number().positive().max(3_600).default(5),
  STORE_EVENTS_RETRY_MAX_MINUTES: z.coerce.number().positive().max(1_440).default(60),
  METRICS_PORT: port.default(9464),
  /**
   * The address the Prometheus `/metrics` of `dropflow worker` and `dropflow gateway` listen on:
   * loopback unless the operator opts in (`0.0.0.0`, or a private interface, for a scraper on
   * another host). Metrics name accounts, queues and error codes: not for strangers.
   */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Prometheus `/metrics` of `dropflow gateway` (0 = off). */
  GATEWAY_METRICS_PORT: port.default(9465),
  /**
   * Before polling, a worker replays the histories of this many of the newest open workflows on its
   * queue, besides the account's singletons and the oldest open run of each type, through its own
   * code and refuses to start if one would break (0 = skip the check).
   */
  REPLAY_CHECK_LIMIT: z.coerce.number().int().min(0).max(1_000).default(50),
  /**
   * Worker Deployment Versioning: the workers of `dropflow worker` poll the orders queue as the
   * version WORKER_DEPLOYMENT_NAME / WORKER_BUILD_ID (docs/changing-workflows.md, "Versioned
   * deploys"). Unset: unversioned, every worker takes every task. The build id defaults to the
   * package version and a hash of the workflow code (src/temporal/deployment.ts).
   */
  WORKER_DEPLOYMENT_NAME: z
    .string()
    .regex(DEPLOYMENT_NAME, { error: deploymentNameRule })
    .optional(),
  WORKER_BUILD_ID: z.string().regex(BUILD_ID, { error: buildIdRule }).optional(),
  /**
   * Encrypts Temporal payloads (inputs, results, signals, queries, memo) with AES-256-GCM; every
   * worker, gateway and CLI of the deployment needs it. Unset: payloads are stored in clear
   * (`dropflow dev` then keeps a key of its own in the data directory). Never logged.
   */
  DROPFLOW_ENCRYPTION_KEY: aesKey.optional(),
  /** The name new payloads carry in their metadata; change it with the key when rotating. */
  DROPFLOW_ENCRYPTION_KEY_ID: z.string().regex(KEY_ID, { error: keyIdRule }).default('default'),
  /** Earlier keys, still read after a rotation: `id=base64,id=base64`. Never logged. */
  DROPFLOW_DECRYPTION_KEYS: keyList.optional(),
  /** Origins of the Temporal UI allowed to call the gateway's codec routes (comma-separated). */
  CODEC_CORS_ORIGIN: originList.optional(),
  /** Bearer token the gateway's codec routes require when set. Never logged. */
  CODEC_TOKEN: z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
  /**
   * Traces (docs/tracing.md): the OTLP/HTTP collector the worker, the gateway and the CLI send
   * their spans to (`/v1/traces` is appended), or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given.
   * Unset, tracing is off: no SDK, no interceptors. The OpenTelemetry SDK reads its other
   * OTEL_* variables itself (OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_SDK_DISABLED, …).
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
});
export type Config = z.infer<typeof Env>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads the environment; a bad value fails with the variable's name and the rule it broke. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid environment: ${lines.join('; ')}`);
  }
  return parsed.data;
}

/** The supplier the worker and CLI talk to: the configured one, or the local sandbox. */
export function supplierTarget(config: Config): { baseUrl: string; apiKey: string } {
  if (config.SUPPLIER_BASE_URL === undefined) {
    return { baseUrl: `http://127.0.0.1:${config.SANDBOX_PORT}`, apiKey: config.SANDBOX_API_KEY };
  }
  if (config.SUPPLIER_API_KEY === undefined) {
    throw new ConfigError(
      'invalid environment: SUPPLIER_API_KEY: is required with SUPPLIER_BASE_URL',
    );
  }
  return { baseUrl: config.SUPPLIER_BASE_URL, apiKey: config.SUPPLIER_API_KEY };
}

/** Where the account registry is kept: ACCOUNTS_FILE, or accounts.json in DROPFLOW_DATA_DIR. */
export function accountsFile(config: Config): string {
  return config.ACCOUNTS_FILE ?? join(config.DROPFLOW_DATA_DIR, 'accounts.json');
}

/** Where a process's Prometheus endpoint binds: METRICS_HOST (default loopback) and `port`. */
export function metricsAddress(config: Config, port: number): string {
  const host = config.METRICS_HOST.includes(':') ? `[${config.METRICS_HOST}]` : config.METRICS_HOST;
  return `${host}:${port}`;
}

/** The intake's rate limits that the environment sets (the gateway has defaults for the rest). */
export function intakeLimits(config: Config): {
  perToken?: number;
  perAccount?: number;
  windowMs?: number;
} {
  return {
    ...(config.INTAKE_RATE_PER_TOKEN !== undefined && { perToken: config.INTAKE_RATE_PER_TOKEN }),
    ...(config.INTAKE_RATE_PER_ACCOUNT !== undefined && {
      perAccount: config.INTAKE_RATE_PER_ACCOUNT,
    }),
    ...(config.INTAKE_RATE_WINDOW_SECONDS !== undefined && {
      windowMs: config.INTAKE_RATE_WINDOW_SECONDS * 1_000,
    }),
  };
}

/** The checkout coordinator's settings from the environment. */
export function checkoutSettings(config: Config): CheckoutSettings {
  return {
    batching: config.CHECKOUT_BATCHING === 'on',
    quietMs: config.CHECKOUT_QUIET_MS,
    maxWaitMs: config.CHECKOUT_MAX_WAIT_MS,
    maxBatch: config.CHECKOUT_MAX_BATCH,
    fundsCheckMs: Math.round(config.FUNDS_CHECK_MINUTES * 60_000),
    signalsPerRun: config.CHECKOUT_SIGNALS_PER_RUN,
    historyPerRun: config.CHECKOUT_HISTORY_PER_RUN,
    outcomesInFlight: config.CHECKOUT_OUTCOMES_IN_FLIGHT,
  };
}

/** Where the workers send store events, and how they retry; no URL: none are sent. */
export function storeEventsOptions(config: Config): StoreEventsOptions {
  const retryFirstMs = Math.max(1, Math.round(config.STORE_EVENTS_RETRY_FIRST_SECONDS * 1_000));
  const retryMaxMs = Math.round(config.STORE_EVENTS_RETRY_MAX_MINUTES * 60_000);
  if (retryMaxMs < retryFirstMs) {
    throw new ConfigError(
      'invalid environment: STORE_EVENTS_RETRY_MAX_MINUTES: must not be shorter than STORE_EVENTS_RETRY_FIRST_SECONDS',
    );
  }
  const timing = { timeoutMs: config.STORE_EVENTS_TIMEOUT_MS, retryFirstMs, retryMaxMs };
  if (config.STORE_EVENTS_URL === undefined) return timing;
  if (config.STORE_EVENTS_SECRET === undefined) {
    throw new ConfigError(
      `invalid environment: STORE_EVENTS_SECRET: is required with STORE_EVENTS_URL (${STORE_SECRET_RULE})`,
    );
  }
  return { ...timing, url: config.STORE_EVENTS_URL, secret: config.STORE_EVENTS_SECRET };
}

/**
 * The deployment `dropflow worker` polls as, with the build id when one is set (otherwise the
 * worker derives it from its workflow code); undefined: unversioned.
 */
export function workerDeployment(
  config: Config,
): { deploymentName: string; buildId?: string } | undefined {
  if (config.WORKER_DEPLOYMENT_NAME === undefined) {
    if (config.WORKER_BUILD_ID === undefined) return undefined;
    throw new ConfigError(
      'invalid environment: WORKER_BUILD_ID: is used only with WORKER_DEPLOYMENT_NAME',
    );
  }
  return {
    deploymentName: config.WORKER_DEPLOYMENT_NAME,
    ...(config.WORKER_BUILD_ID !== undefined && { buildId: config.WORKER_BUILD_ID }),
  };
}
