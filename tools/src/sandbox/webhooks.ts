/**
 * Webhook delivery (docs/supplier-api.md §12.3): POST the message to the topic's callback with the
 * `sign` header; a 200 within 3 seconds is a success, anything else is retried up to 3 times with
 * the same messageId and body, then dropped. Outcomes are counted per topic and hour for the
 * auto-close rule. The outbox is part of the persisted state, so pending pushes survive a restart.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { type WebhookTopic, signWebhook } from 'dropflow/supplier';
import type { SandboxHost } from './host.js';
import type {
  SandboxAccount,
  WebhookDelivery,
  WebhookMessage,
  WebhookSubscription,
} from './state.js';

/**
 * The message envelope of docs/supplier-api.md §12.4, without the messageId the dispatcher assigns.
 */
const RESPONSE_TIMEOUT_MS = 3_000;
/** Pushes under way to one callback address at once. */
const MAX_IN_FLIGHT_PER_CALLBACK = 4;
const HOUR_MS = 60 * 60 * 1000;
/** docs/supplier-api.md §12.3: below 80% (configurable). */
const AUTO_CLOSE_BELOW = 0.8;
/** Hourly counts older than this are pruned. */
const HOURS_KEPT = 48;

/**
 * Product, variant and stock changes reach an account only for products it subscribed
 * (docs/supplier-api.md §12.2).
 */
export function isSubscribed(account: SandboxAccount, pid: string): boolean {
  return account.subscribeAll || account.subscriptions[pid]?.status === true;
}

export class WebhookDispatcher {
  private agent: Agent | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private readonly inFlight = new Set<string>();
  private readonly perCallback = new Map<string, number>();

  constructor(private readonly sandbox: SandboxHost) {}

  /**
   * Queues a message for the account's callback of the topic; returns its messageId, or undefined
   * when the topic is not enabled (never set, cancelled or auto-closed).
   */
  enqueue(openId: string, topic: WebhookTopic, message: WebhookMessage): string | undefined {
    if (!this.pushing(openId, topic)) return undefined;
    const messageId = randomUUID().replace(/-/g, '');
    const { type, messageType, params } = message;
    this.sandbox.state.outbox.push({
      messageId,
      openId,
      topic,
      body: JSON.stringify({ messageId, type, messageType, params }),
      attempts: 0,
      nextAttemptAt: this.sandbox.now(),
    });
    this.sandbox.changed();
    this.wake(this.sandbox.now());
    return messageId;
  }

  start(): void {
    if (this.agent) return;
    this.agent = new Agent({ connectTimeout: RESPONSE_TIMEOUT_MS, keepAliveTimeout: 4_000 });
    this.wake(this.sandbox.now());
  }

  /** Stops delivering. Pushes under way are abandoned and stay queued (sent again on start). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    const agent = this.agent;
    this.agent = undefined;
    void agent?.destroy().catch(() => undefined);
  }

  /** Whether the topic pushes now: enabled, not paused, the account not muted. */
  private pushing(openId: string, topic: WebhookTopic): boolean {
    const sub = this.subscription(openId, topic);
    const muted = this.sandbox.state.accounts[openId]?.webhooksMuted === true;
    return sub?.enabled === true && sub.pausedReason === undefined && !muted;
  }

  /** The topic's subscription after applying the auto-close rule. */
  private subscription(openId: string, topic: WebhookTopic): WebhookSubscription | undefined {
    const sub = this.sandbox.state.accounts[openId]?.webhooks[topic];
    if (sub?.enabled) this.autoClose(sub, openId, topic);
    return sub;
  }

  /** Runs the delivery loop at `at` (or earlier, if a run is already due sooner). */
  private wake(at: number): void {
    if (!this.agent || at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.run();
      },
      Math.max(0, at - this.sandbox.now()),
    );
    this.timer.unref();
  }

  private run(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.sandbox.now();
    let next = Infinity;
    for (const delivery of [...this.sandbox.state.outbox]) {
      if (this.inFlight.has(delivery.messageId)) continue;
      if (delivery.nextAttemptAt > now) {
        next = Math.min(next, delivery.nextAttemptAt);
        continue;
      }
      const sub = this.subscription(delivery.openId, delivery.topic);
      if (!sub?.enabled || !this.pushing(delivery.openId, delivery.topic)) {
        // Cancelled, auto-closed or paused: the supplier stops pushing to that topic.
        this.remove(delivery);
        continue;
      }
      // A busy callback gets the rest when one of its pushes ends (which wakes the loop).
      if ((this.perCallback.get(sub.callbackUrl) ?? 0) >= MAX_IN_FLIGHT_PER_CALLBACK) continue;
      this.deliver(delivery, sub.callbackUrl);
    }
    if (next !== Infinity) this.wake(next);
  }

  private deliver(delivery: WebhookDelivery, url: string): void {
    const agent = this.agent;
    if (!agent) return;
    this.inFlight.add(delivery.messageId);
    this.perCallback.set(url, (this.perCallback.get(url) ?? 0) + 1);
    void this.post(agent, url, delivery).then((ok) => {
      this.inFlight.delete(delivery.messageId);
      const left = (this.perCallback.get(url) ?? 1) - 1;
      if (left > 0) this.perCallback.set(url, left);
      else this.perCallback.delete(url);
      // Stopped meanwhile: leave the state as it is, the push is retried after a restart.
      if (this.agent !== agent) return;
      this.settle(delivery, ok);
      this.wake(this.sandbox.now());
    });
  }

  /** One push; true when the receiver answered 200 within the time limit. */
  private async post(agent: Agent, url: string, delivery: WebhookDelivery): Promise<boolean> {
    try {
      const res = await request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          sign: signWebhook(delivery.openId, delivery.body),
        },
        body: delivery.body,
        dispatcher: agent,
        signal: AbortSignal.timeout(RESPONSE_TIMEOUT_MS),
      });
      await res.body.dump();
      return res.statusCode === 200;
    } catch (err) {
      this.sandbox.options.log.debug(
        { err, messageId: delivery.messageId, topic: delivery.topic },
        'webhook push failed',
      );
      return false;
    }
  }

  private settle(delivery: WebhookDelivery, ok: boolean): void {
    const { openId, topic, messageId } = delivery;
    const sub = this.sandbox.state.accounts[openId]?.webhooks[topic];
    if (sub) this.record(sub, ok);
    if (ok) {
      this.remove(delivery);
      this.sandbox.count(openId, (s) => (s.webhooksDelivered += 1));
      return;
    }
    delivery.attempts += 1;
    const delay = this.sandbox.options.webhookRetryDelaysMs[delivery.attempts - 1];
    if (delay === undefined) {
      this.remove(delivery);
      this.sandbox.count(openId, (s) => (s.webhooksFailed += 1));
      this.sandbox.options.log.info(
        { messageId, topic, attempts: delivery.attempts },
        'webhook dropped after its retries',
      );
      return;
    }
    delivery.nextAttemptAt = this.sandbox.now() + delay;
    this.sandbox.changed();
  }

  private remove(delivery: WebhookDelivery): void {
    const outbox = this.sandbox.state.outbox;
    const i = outbox.findIndex((d) => d.messageId === delivery.messageId);
    if (i >= 0) outbox.splice(i, 1);
    this.sandbox.changed();
  }

  private record(sub: WebhookSubscription, ok: boolean): void {
    const hour = Math.floor(this.sandbox.now() / HOUR_MS);
    const counts = (sub.hourly[String(hour)] ??= { ok: 0, failed: 0 });
    if (ok) counts.ok += 1;
    else counts.failed += 1;
    sub.hourly = Object.fromEntries(
      Object.entries(sub.hourly).filter(([key]) => Number(key) >= hour - HOURS_KEPT),
    );
  }

  /**
   * docs/supplier-api.md §12.3: closes the topic when the success rate was below 80% in each of the
   * last two complete hours (with at least one push in each). It stays closed until set to ENABLE
   * again.
   */
  private autoClose(sub: WebhookSubscription, openId: string, topic: WebhookTopic): void {
    const hour = Math.floor(this.sandbox.now() / HOUR_MS);
    const rates = [hour - 2, hour - 1].map((h) => {
      const c = sub.hourly[String(h)];
      return c && c.ok + c.failed > 0 ? c.ok / (c.ok + c.failed) : undefined;
    });
    if (!rates.every((r) => r !== undefined && r < AUTO_CLOSE_BELOW)) return;
    const percent = rates.map((r) => `${Math.round((r ?? 0) * 100)}%`).join(' and ');
    sub.enabled = false;
    sub.closedReason =
      `closed automatically: push success rate ${percent} in the hours from ` +
      `${new Date((hour - 2) * HOUR_MS).toISOString()}, below ${AUTO_CLOSE_BELOW * 100}% in both; ` +
      'set the topic to ENABLE again to reopen it';
    this.sandbox.changed();
    this.sandbox.options.log.info(
      { openId, topic, reason: sub.closedReason },
      'webhook topic closed',
    );
  }
}
