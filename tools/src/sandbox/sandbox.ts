/**
 * The sandbox's live state and the services every route uses: accounts, ids, stats, webhooks,
 * persistence. Routes (routes/*.ts) hold the supplier's behaviour, one file per API area.
 */
import { randomBytes } from 'node:crypto';
import type { WebhookTopic } from 'dropflow/supplier';
import { Faults } from './faults.js';
import type { SandboxHost, SandboxOptions } from './host.js';
import { Lifecycle } from './lifecycle.js';
import { RateLimiter } from './rateLimit.js';
import { RequestRate } from './requestRate.js';
import { TokenLimits } from './tokenLimits.js';
import {
  emptyState,
  emptyStats,
  upgradeState,
  type SandboxAccount,
  type SandboxSettings,
  type SandboxState,
  type SandboxStats,
  type WebhookMessage,
} from './state.js';
import { StateFile } from './store.js';
import { WebhookDispatcher } from './webhooks.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_SANDBOX_OPTIONS: Omit<SandboxOptions, 'log'> = {
  apiKey: 'sandbox',
  ratePerSecond: 1,
  batchRatePerSecond: 2,
  tokenRatePerSecond: 1,
  allowLocalWebhooks: false,
  lifecycleStepMs: 0,
  initialBalance: 10_000,
  accessTokenLifetimeMs: 15 * DAY_MS,
  refreshTokenLifetimeMs: 180 * DAY_MS,
  tokenCacheMs: DAY_MS,
  tokenIntervalSeconds: 300,
  refreshesPerMinute: 5,
  webhookRetryDelaysMs: [1_000, 5_000, 15_000],
  batchLagMs: 0,
  disputeLagMs: 0,
  payWindowSeconds: DAY_MS / 1_000,
  oneBudget: false,
};

export class Sandbox implements SandboxHost {
  readonly faults = new Faults();
  readonly limiter: RateLimiter;
  readonly tokenLimits = new TokenLimits();
  readonly requestRate = new RequestRate();
  readonly webhooks: WebhookDispatcher;
  readonly lifecycle: Lifecycle;
  /** Settings of accounts without their own; the start options until POST /__sandbox/settings. */
  readonly defaults: SandboxSettings;
  private readonly file: StateFile;

  private constructor(
    readonly state: SandboxState,
    readonly options: SandboxOptions,
  ) {
    this.limiter = new RateLimiter(
      (c, account) =>
        c === 'batch'
          ? options.batchRatePerSecond
          : c === 'token'
            ? options.tokenRatePerSecond
            : this.settingsFor(account).ratePerSecond,
      (account) => this.settingsFor(account).oneBudget,
    );
    this.file = new StateFile(
      options.dataDir === undefined ? undefined : `${options.dataDir}/sandbox-state.json`,
      () => this.state,
    );
    this.webhooks = new WebhookDispatcher(this);
    this.lifecycle = new Lifecycle(this);
    this.defaults = {
      batchLagMs: options.batchLagMs,
      payWindowSeconds: options.payWindowSeconds,
      oneBudget: options.oneBudget,
      tokenIntervalSeconds: options.tokenIntervalSeconds,
      ratePerSecond: options.ratePerSecond,
      disputeLagMs: options.disputeLagMs,
    };
  }

  static async open(options: SandboxOptions): Promise<Sandbox> {
    const path =
      options.dataDir === undefined ? undefined : `${options.dataDir}/sandbox-state.json`;
    const loaded = await StateFile.load(path);
    const state = loaded ? upgradeState(loaded) : emptyState(options.lifecycleStepMs);
    // The speed is the caller's choice at each start; /__sandbox/lifecycle changes it until then.
    state.lifecycleStepMs = options.lifecycleStepMs;
    const sb = new Sandbox(state, options);
    sb.defaultAccount();
    return sb;
  }

  now(): number {
    return Date.now();
  }

  /** A new unique id: prefix, date, then a counter that survives restarts. */
  nextId(prefix: string): string {
    this.state.seq += 1;
    const d = new Date(this.now());
    const date =
      `${d.getUTCFullYear() % 100}`.padStart(2, '0') +
      `${d.getUTCMonth() + 1}`.padStart(2, '0') +
      `${d.getUTCDate()}`.padStart(2, '0');
    return `${prefix}${date}${String(this.state.seq).padStart(10, '0')}`;
  }

  /** Records that the state changed, so it is written to disk. */
  changed(): void {
    this.file.changed();
  }

  flush(): Promise<void> {
    return this.file.flush();
  }

  /** The account of the configured API key, created on first start. */
  defaultAccount(): SandboxAccount {
    return this.accountByApiKey(this.options.apiKey) ?? this.createAccount(this.options.apiKey);
  }

  createAccount(
    apiKey = `sbx_${randomBytes(12).toString('hex')}`,
    balance?: number,
  ): SandboxAccount {
    const existing = this.accountByApiKey(apiKey);
    if (existing) return existing;
    const openId = String(
      1_000_000_000 + Object.keys(this.state.accounts).length * 7_919 + this.state.seq,
    );
    const account: SandboxAccount = {
      openId,
      apiKey,
      balance: {
        amount: balance ?? this.options.initialBalance,
        noWithdrawalAmount: 0,
        freezeAmount: 0,
      },
      webhooks: {},
      subscribeAll: false,
      subscriptions: {},
      subscriptionCap: 100,
      myProducts: [],
    };
    this.state.seq += 1;
    this.state.accounts[openId] = account;
    this.state.statsByAccount[openId] = { ...emptyStats(), since: this.now() };
    this.changed();
    return account;
  }

  accountByApiKey(apiKey: string): SandboxAccount | undefined {
    return Object.values(this.state.accounts).find((a) => a.apiKey === apiKey);
  }

  /** The account whose current, unexpired access token this is. */
  accountByAccessToken(token: string): SandboxAccount | undefined {
    const now = this.now();
    return Object.values(this.state.accounts).find(
      (a) => a.tokens?.accessToken === token && a.tokens.accessExpiresAt > now,
    );
  }

  account(openId: string): SandboxAccount {
    const a = this.state.accounts[openId];
    if (!a) throw new Error(`no sandbox account ${openId}`);
    return a;
  }

  /** The account's settings: its own where it has them, the defaults otherwise. */
  settingsFor(openId: string): SandboxSettings {
    return { ...this.defaults, ...this.state.accounts[openId]?.settings };
  }

  /** Updates the global counters and the account's own. */
  count(openId: string | undefined, update: (s: SandboxStats) => void): void {
    update(this.state.stats);
    if (openId !== undefined) update((this.state.statsByAccount[openId] ??= emptyStats()));
    this.changed();
  }

  /**
   * A request of the account that spends its general budget (every class but the token calls):
   * keeps its highest count in any 1 s (requestRate.ts).
   */
  countRequestRate(openId: string, path: string, now = this.now()): void {
    const inWindow = this.requestRate.record(openId, now, path);
    const stats = (this.state.statsByAccount[openId] ??= emptyStats());
    if (inWindow > (stats.peakRequestsPerSecond ?? 0)) {
      stats.peakRequestsPerSecond = inWindow;
      stats.peakAt = now;
      const window = this.requestRate.window(openId);
      const first = window[0]?.at ?? now;
      stats.peakWindow = window.map((e) => ({ ms: e.at - first, path: e.path }));
    }
  }

  /** Starts the account's counters again from zero (a new measure); its orders stay. */
  resetStats(openId: string): SandboxStats {
    const fresh = { ...emptyStats(), since: this.now() };
    this.state.statsByAccount[openId] = fresh;
    this.requestRate.forget(openId);
    this.changed();
    return fresh;
  }

  /** Pushes a webhook message to the account's callback for the topic, if one is enabled. */
  emit(openId: string, topic: WebhookTopic, message: WebhookMessage): void {
    this.webhooks.enqueue(openId, topic, message);
  }

  async close(): Promise<void> {
    this.webhooks.stop();
    this.lifecycle.stop();
    await this.flush();
  }
}
