/**
 * The environment dropflow reads, validated once. Every port is also a command-line flag; flags
 * win over the environment. Secrets (SUPPLIER_API_KEY) are never logged.
 */
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65_535);

export const Env = z.object({
  /** State of `dropflow dev`: Temporal's database and the sandbox's state. */
  DROPFLOW_DATA_DIR: z.string().min(1).default('.dropflow'),
  /** The supplier; unset means the local sandbox. */
  SUPPLIER_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  SUPPLIER_API_KEY: z.string().min(1).max(200).optional(),
  /** The account's general request rate (tier: 1, 2, 4 or 6 per second). */
  SUPPLIER_RATE_PER_SECOND: z.coerce.number().positive().default(1),
  /** The batch order query and proof-of-delivery rate. */
  SUPPLIER_BATCH_RATE_PER_SECOND: z.coerce.number().positive().default(2),
  /** Seconds between tracking sweeps of one supplier account (its Temporal Schedule). */
  TRACKING_EVERY_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  SANDBOX_PORT: port.default(8787),
  SANDBOX_API_KEY: z.string().min(1).max(200).default('sandbox'),
  TEMPORAL_ADDRESS: z.string().min(1).default('localhost:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /** Temporal Cloud API key; turns on TLS. Never logged. */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** The task-queue set of this supplier account (`<prefix>/supplier-api`, …); empty: none. */
  TEMPORAL_TASK_QUEUE_PREFIX: z.string().default(''),
  TEMPORAL_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  GATEWAY_PORT: port.default(8080),
  /** Address `dropflow gateway` listens on (a reverse proxy usually terminates TLS before it). */
  GATEWAY_HOST: z.string().min(1).default('0.0.0.0'),
  /** Bearer token of the order intake (`POST /v1/orders`); unset: intake answers 401. Never logged. */
  GATEWAY_TOKEN: z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
  /**
   * The webhook signing key (the account's openId). Unset: learned from the supplier's token
   * response with SUPPLIER_API_KEY. Never logged.
   */
  WEBHOOK_OPEN_ID: z.string().min(1).optional(),
  /** Upstream address that product, variant and stock webhook events are forwarded to (worker). */
  CATALOGUE_EVENTS_URL: z.url({ protocol: /^https?$/ }).optional(),
  METRICS_PORT: port.default(9464),
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
