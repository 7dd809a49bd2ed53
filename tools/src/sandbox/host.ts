/**
 * What the sandbox's parts (lifecycle.ts, orderBook.ts, webhooks.ts) use of the Sandbox
 * (sandbox.ts) that builds them, so that none of them imports sandbox.ts back.
 */
import type { Logger } from 'pino';

import type { WebhookTopic } from 'dropflow/supplier';
import type { SandboxState, SandboxStats, WebhookMessage } from './state.js';

export interface SandboxOptions {
  /** Where the state file lives; without it the state is kept in memory only. */
  dataDir?: string;
  /** API key of the default account. */
  apiKey: string;
  ratePerSecond: number;
  batchRatePerSecond: number;
  tokenRatePerSecond: number;
  /** Accept http:// and loopback webhook callbacks (local development and tests only). */
  allowLocalWebhooks: boolean;
  /** Milliseconds between automatic lifecycle steps of paid orders; 0 = only by /advance. */
  lifecycleStepMs: number;
  /** Balance of a new account, USD. */
  initialBalance: number;
  accessTokenLifetimeMs: number;
  refreshTokenLifetimeMs: number;
  /** Repeated getAccessToken calls within this window return the same tokens. */
  tokenCacheMs: number;
  /** Default of every account: getAccessToken at most once per this many seconds (0 = no limit). */
  tokenIntervalSeconds: number;
  /** refreshAccessToken calls answered per account in any minute (0 = no limit). */
  refreshesPerMinute: number;
  /** Delays before the 3 retries of a failed webhook push. */
  webhookRetryDelaysMs: number[];
  /** Default of every account: order queries lag this far behind (0 = none). */
  batchLagMs: number;
  /** Default of every account: new disputes reach the dispute list this much later (0 = none). */
  disputeLagMs: number;
  /** Default of every account: how long a payId can be paid. */
  payWindowSeconds: number;
  /** Default of every account: every request spends the general limit (rateLimit.ts). */
  oneBudget: boolean;
  log: Logger;
}

export interface SandboxHost {
  readonly options: SandboxOptions;
  readonly state: SandboxState;
  now(): number;
  changed(): void;
  count(openId: string | undefined, update: (s: SandboxStats) => void): void;
  emit(openId: string, topic: WebhookTopic, message: WebhookMessage): void;
}
