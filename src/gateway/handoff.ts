/**
 * Handing a signed webhook message to Temporal, durably: a validated one is routed to its
 * workflows, or — when none takes it — held in the account's `webhook-inbox` workflow
 * (signalWithStart); one dropflow cannot read is held there as unreadable. When this resolves,
 * Temporal has the message; the gateway answers 200 only then.
 */
import type { Client } from '@temporalio/client';

import { accountScope, DEFAULT_ACCOUNT } from '../accounts/contract.js';
import {
  accountStartOptions,
  WorkflowPriority,
  type AccountRef,
} from '../accounts/accountStart.js';
import {
  holdEventSignal,
  WEBHOOK_INBOX_WORKFLOW,
  webhookInboxId,
  type HoldRequest,
  type RouteOutcome,
} from '../inbox/contract.js';
import type { WebhookMessage } from '../supplier/webhookMessages.js';
import type { CheckoutSettings } from '../terms/checkoutSettings.js';
import { queuePrefix, type TaskQueues } from '../temporal/taskQueues.js';
import { webhookEvent } from './news.js';
import { WebhookRouter } from './routing.js';
import { UnreadableWebhook } from './unreadable.js';

/** What the gateway hands off: a validated message, or a signed one it could not read. */
export type IncomingWebhook = WebhookMessage | UnreadableWebhook;

export type HandoffOutcome =
  | Exclude<RouteOutcome, { outcome: 'unroutable' }>
  | { outcome: 'held'; workflowId: string; reason: string; foreign?: boolean };

export class Handoff {
  private readonly router: WebhookRouter;

  constructor(
    private readonly client: Client,
    private readonly queues: TaskQueues,
    checkout: CheckoutSettings,
    private readonly account: AccountRef = { id: DEFAULT_ACCOUNT },
  ) {
    this.router = new WebhookRouter(client, queues, checkout, account);
  }

  async handOff(message: IncomingWebhook, receivedAt: Date): Promise<HandoffOutcome> {
    if (message instanceof UnreadableWebhook) {
      // Nothing to route by: kept for a person (or a replay once dropflow reads it).
      const { reason } = message;
      const workflowId = await this.hold({ event: message.event, reason, autoReplay: false });
      return { outcome: 'held', workflowId, reason };
    }
    const routed = await this.router.route(message, receivedAt);
    if (routed.outcome !== 'unroutable') return routed;
    const workflowId = await this.hold({
      event: webhookEvent(message, receivedAt),
      reason: routed.reason,
      autoReplay: routed.autoReplay,
      ...(routed.unknownOrder === true && { unknownOrder: true }),
    });
    return {
      outcome: 'held',
      workflowId,
      reason: routed.reason,
      ...(routed.foreign === true && { foreign: true }),
    };
  }

  private async hold(request: HoldRequest): Promise<string> {
    const workflowId = webhookInboxId(accountScope(queuePrefix(this.queues), this.account.id));
    await this.client.workflow.signalWithStart(WEBHOOK_INBOX_WORKFLOW, {
      ...accountStartOptions(this.account, WorkflowPriority.Singleton),
      workflowId,
      taskQueue: this.queues.orders,
      args: [{}],
      signal: holdEventSignal,
      signalArgs: [request],
    });
    return workflowId;
  }
}
