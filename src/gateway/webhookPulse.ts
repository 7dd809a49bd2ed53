/**
 * What the gateway tells each account's tracking sweeper about its pushes (docs/webhook-health.md):
 * per topic, how many it answered 200 and how many it could not take, and when the latest accepted
 * one arrived. Tallied in memory as answers go out, and sent as one `webhookPulse` signal per
 * account every `everyMs` when there is something to tell: never in a webhook's answer, which the
 * supplier waits for 3 s at most. A signal that fails (the sweeper is not running yet, Temporal is
 * away) is logged and its tally dropped; the next one tells what follows.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';

import { accountScope } from '../accounts/contract.js';
import type { Logger } from '../telemetry/log.js';
import { WebhookTopic, WebhookType } from '../supplier/api/webhooks.js';
import { queuePrefix, type TaskQueues } from '../temporal/taskQueues.js';
import {
  trackingSweeperId,
  webhookPulseSignal,
  type TopicPushes,
  type WebhookPulse,
} from '../tracking/contract.js';

/** The topic each message `type` is pushed on. */
const TOPIC_OF_TYPE: Readonly<Record<WebhookType, string>> = {
  [WebhookType.Order]: WebhookTopic.Order,
  [WebhookType.OrderSplit]: WebhookTopic.Order,
  [WebhookType.Logistic]: WebhookTopic.Logistics,
  [WebhookType.Makeup]: WebhookTopic.Makeup,
  [WebhookType.Product]: WebhookTopic.Product,
  [WebhookType.Variant]: WebhookTopic.Product,
  [WebhookType.Stock]: WebhookTopic.Stock,
  [WebhookType.PrivateOrder]: WebhookTopic.PrivateOrder,
};

/** The topic a pushed message came on, by its `type`; `unknown` when it could not be read. */
export function topicOfType(type: string | undefined): string {
  return type !== undefined && Object.hasOwn(TOPIC_OF_TYPE, type)
    ? TOPIC_OF_TYPE[type as WebhookType]
    : 'unknown';
}

export const DEFAULT_PULSE_MS = 15_000;

export interface WebhookPulsesOptions {
  client: Client;
  queues: TaskQueues;
  log: Logger;
  /** Between two pulses of an account (default 15 s). */
  everyMs?: number;
}

export class WebhookPulses {
  private readonly tallies = new Map<string, WebhookPulse>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: WebhookPulsesOptions) {}

  /**
   * A push of `account` was answered: `accepted` when 200, `told` when it brought an order news.
   * Synchronous and cheap.
   */
  readonly record = (
    account: string,
    type: string | undefined,
    accepted: boolean,
    told = false,
  ): void => {
    let pulse = this.tallies.get(account);
    if (pulse === undefined) {
      pulse = { topics: {} };
      this.tallies.set(account, pulse);
    }
    const topic = topicOfType(type);
    const t: TopicPushes = (pulse.topics[topic] ??= { accepted: 0, failed: 0 });
    if (accepted) {
      t.accepted += 1;
      t.lastAcceptedAt = new Date().toISOString();
      if (told) t.lastToldAt = t.lastAcceptedAt;
    } else {
      t.failed += 1;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.opts.everyMs ?? DEFAULT_PULSE_MS).unref();
  };

  /** Sends every tally now (tests, and closing). */
  async flush(): Promise<void> {
    const due = [...this.tallies];
    this.tallies.clear();
    await Promise.all(due.map(([account, pulse]) => this.send(account, pulse)));
  }

  /** Stops the timer; a tally not sent yet is dropped (the sweepers' own sweeps go on). */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.tallies.clear();
  }

  private async send(account: string, pulse: WebhookPulse): Promise<void> {
    const id = trackingSweeperId(accountScope(queuePrefix(this.opts.queues), account));
    try {
      await this.opts.client.workflow.getHandle(id).signal(webhookPulseSignal, pulse);
    } catch (err) {
      const level = err instanceof WorkflowNotFoundError ? 'debug' : 'warn';
      this.opts.log[level]({ err, account }, 'webhook pulse not delivered to the sweeper');
    }
  }
}
