/**
 * The inbox's re-routing (its `replay` update and automatic retries): each held event is parsed
 * again and routed as the gateway would route it now. Runs on the orders queue with the worker's
 * Temporal client; no supplier call.
 */
import type { Client } from '@temporalio/client';

import type { WebhookEvent } from '../client/webhookDefinitions.js';
import { WebhookRouter } from '../gateway/routing.js';
import { unreadableReason } from '../gateway/unreadable.js';
import { parseWebhookMessage } from '../supplier/webhookMessages.js';
import type { TaskQueues } from '../temporal/taskQueues.js';
import type { CheckoutSettings } from '../workflows/checkout/messages.js';

export type HeldEventOutcome =
  | { messageId: string; outcome: 'delivered' | 'closed' }
  | {
      messageId: string;
      outcome: 'held';
      reason: string;
      autoReplay: boolean;
      /** An ORDER event whose `order:<orderNumber>` workflow never existed. */
      unknownOrder?: boolean;
    };

/** Events routed at once. */
const CONCURRENCY = 10;

/** `checkout`: the worker's checkout settings, for a coordinator a routed top-up must start. */
export function inboxActivities(client: Client, queues: TaskQueues, checkout: CheckoutSettings) {
  const router = new WebhookRouter(client, queues, checkout);

  async function routeOne(event: WebhookEvent): Promise<HeldEventOutcome> {
    const { messageId } = event;
    const parsed = parseWebhookMessage({
      messageId,
      type: event.type,
      messageType: event.messageType,
      params: event.params,
    });
    if (!parsed.ok) {
      return {
        messageId,
        outcome: 'held',
        reason: unreadableReason(parsed.issues),
        autoReplay: false,
      };
    }
    const routed = await router.route(parsed.message, new Date(event.receivedAt));
    switch (routed.outcome) {
      case 'unroutable':
        return {
          messageId,
          outcome: 'held',
          reason: routed.reason,
          autoReplay: routed.autoReplay,
          ...(routed.unknownOrder === true && { unknownOrder: true }),
        };
      case 'closed':
        return { messageId, outcome: 'closed' };
      default:
        return { messageId, outcome: 'delivered' };
    }
  }

  return {
    /** Routes held events; a failure to reach Temporal fails the attempt (retried). */
    async routeHeldEvents(events: WebhookEvent[]): Promise<HeldEventOutcome[]> {
      const out: HeldEventOutcome[] = [];
      for (let i = 0; i < events.length; i += CONCURRENCY) {
        out.push(...(await Promise.all(events.slice(i, i + CONCURRENCY).map(routeOne))));
      }
      return out;
    },
  };
}

export type InboxActivities = ReturnType<typeof inboxActivities>;
