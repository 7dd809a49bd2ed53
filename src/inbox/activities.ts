/**
 * The inbox's re-routing (its `replay` update and automatic retries): each held event is parsed
 * again and routed as the gateway would route it now. Runs on the orders queue with the worker's
 * router (gateway/routing.ts); no supplier call.
 */
import { unreadableReason, type RouteOutcome, type WebhookEvent } from './contract.js';
import { parseWebhookMessage, type WebhookMessage } from '../supplier/webhookMessages.js';

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

/** Routes a message as the gateway does: the worker hands over the gateway's WebhookRouter. */
export interface WebhookRouting {
  route(message: WebhookMessage, receivedAt: Date): Promise<RouteOutcome>;
}

/** The router of a supplier account (the inbox's); the default account's when none is named. */
export type RouterOf = (account: string | undefined) => WebhookRouting;

export function inboxActivities(routerOf: RouterOf) {
  async function routeOne(router: WebhookRouting, event: WebhookEvent): Promise<HeldEventOutcome> {
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
    async routeHeldEvents(events: WebhookEvent[], account?: string): Promise<HeldEventOutcome[]> {
      const router = routerOf(account);
      const out: HeldEventOutcome[] = [];
      for (let i = 0; i < events.length; i += CONCURRENCY) {
        const slice = events.slice(i, i + CONCURRENCY);
        out.push(...(await Promise.all(slice.map((event) => routeOne(router, event)))));
      }
      return out;
    },
  };
}

export type InboxActivities = ReturnType<typeof inboxActivities>;
