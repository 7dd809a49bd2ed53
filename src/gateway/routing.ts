/**
 * Where a validated webhook message goes (docs/architecture.md §16.2), used by the gateway and by
 * the inbox's replay activity alike:
 *
 * - ORDER (INSERT, UPDATE, DELETE, ORDER_CONNNECTED): for `order:<orderNumber>`; without that
 *   workflow, ORDER_CONNNECTED goes to the orders of that orderNumber waiting in
 *   AWAITING_CONNECTION, and any order message to the order holding its svc order id.
 * - LOGISTIC: for the order holding the svc order id (`orderId`), found through visibility (its
 *   SvcOrderId, or one of its parcels' ParcelCodes).
 * - Shipping news (shipped, delivered, a tracking number) goes to the account's tracking sweeper,
 *   which asks the supplier and tells the order what it shows (pushedOrders.ts); the rest, and
 *   shipping news when no sweeper runs, is the order's `supplierEvent`.
 * - ORDERSPLIT: to the order holding the original order id; the order believes it only once its
 *   own look-up of the new codes shows them.
 * - MAKEUP PAID (a top-up): one signal to the account's checkout coordinator (signal-with-start),
 *   whose funds watcher reads the balance and tells each order it covers, paced — never one
 *   signal per waiting order, which on a sale day would fan thousands of signals back into the
 *   coordinator; other makeup messages to the order they relate to (`relationOrderId`), if
 *   dropflow has it.
 * - PRODUCT, VARIANT, STOCK: to the account's `catalogue-events` workflow (signalWithStart).
 * - Anything else, or no recipient: `unroutable` — the caller keeps it (the inbox), never drops it.
 *
 * Every recipient deduplicates by the webhook's messageId, so a message routed twice (a supplier
 * retry, a replay) has one effect.
 */
import type { Client } from '@temporalio/client';

import { accountScope, DEFAULT_ACCOUNT } from '../accounts/contract.js';
import {
  accountStartOptions,
  WorkflowPriority,
  type AccountRef,
} from '../accounts/accountStart.js';
import { orderWorkflowId, Stage, type SupplierNews } from '../order/contract.js';
import {
  CATALOGUE_EVENTS_WORKFLOW,
  catalogueEventSignal,
  catalogueEventsId,
  type RouteOutcome,
} from '../inbox/contract.js';
import { queuePrefix, type TaskQueues } from '../temporal/taskQueues.js';
import { orderStatusWorthTelling, TrackingTold } from './newsWorth.js';
import {
  endedStatus,
  MakeupStatus,
  OrderStatus,
  reachedStatus,
} from '../supplier/api/constants.js';
import {
  CHECKOUT_WORKFLOW,
  checkoutFundsSignal,
  checkoutStartOptions,
  checkoutWorkflowId,
} from '../checkout/contract.js';
import type { CheckoutSettings } from '../terms/checkoutSettings.js';
import { WebhookChange, WebhookType } from '../supplier/api/webhooks.js';
import type { WebhookMessage } from '../supplier/webhookMessages.js';
import {
  CATALOGUE_TYPES,
  logisticsNews,
  makeupNews,
  orderNews,
  splitNews,
  webhookEvent,
  type LogisticMessage,
  type MakeupMessage,
  type OrderMessage,
} from './news.js';
import { OrderTargets, type Delivery } from './orderTargets.js';
import { PushedOrders } from './pushedOrders.js';
import { trackingSweeperId } from '../tracking/contract.js';

const unroutable = (
  reason: string,
  autoReplay: boolean,
  unknownOrder = false,
  foreign = false,
): RouteOutcome => ({
  outcome: 'unroutable',
  reason,
  autoReplay,
  ...(unknownOrder && { unknownOrder }),
  ...(foreign && { foreign }),
});

function fromDelivery(d: Delivery): RouteOutcome | undefined {
  if (d.signalled.length > 0) return { outcome: 'delivered', workflowIds: d.signalled };
  if (d.closed.length > 0) return { outcome: 'closed', workflowIds: d.closed };
  return undefined;
}

export class WebhookRouter {
  private readonly targets: OrderTargets;
  private readonly trackingTold = new TrackingTold();
  /** Shipping news goes to the account's tracking sweeper, batched (pushedOrders.ts). */
  private readonly pushed: PushedOrders;

  /**
   * `checkout`: the deployment's checkout settings, for a coordinator that must be started;
   * `account`: the supplier account whose webhooks this router routes (its orders, its singletons).
   */
  constructor(
    private readonly client: Client,
    private readonly queues: TaskQueues,
    private readonly checkout: CheckoutSettings,
    private readonly account: AccountRef = { id: DEFAULT_ACCOUNT },
    pushWindowMs?: number,
  ) {
    this.targets = new OrderTargets(client, queues, account.id);
    this.pushed = new PushedOrders(client, trackingSweeperId(this.scope), pushWindowMs);
  }

  /** The scope of the account's singletons in the queue set. */
  private get scope(): string {
    return accountScope(queuePrefix(this.queues), this.account.id);
  }

  async route(m: WebhookMessage, receivedAt: Date): Promise<RouteOutcome> {
    if (CATALOGUE_TYPES.has(m.type)) return this.catalogue(m, receivedAt);
    switch (m.type) {
      case WebhookType.Order:
        return this.order(m);
      case WebhookType.Logistic:
        return this.logistics(m);
      case WebhookType.Makeup:
        return this.makeup(m);
      case WebhookType.OrderSplit: {
        const routed = await this.bySvcOrderId(m.params.originalOrderId, splitNews(m));
        // Visibility may trail an order that just learnt its id: kept and tried again.
        return (
          routed ??
          unroutable(`no order workflow holds svc order ${m.params.originalOrderId}`, true)
        );
      }
      default:
        // PRIVATE_ORDER: no workflow consumes them; the inbox shows them to people.
        return unroutable(`no dropflow workflow consumes ${m.type} messages`, false);
    }
  }

  private async order(m: OrderMessage): Promise<RouteOutcome> {
    const news = orderNews(m);
    if (news.kind === 'order' && !orderStatusWorthTelling(news.orderStatus)) {
      return {
        outcome: 'skipped',
        reason: `${news.orderStatus}: the order knows it from its own calls`,
      };
    }
    const orderNumber = m.params.orderNumber ?? undefined;
    const svcOrderId = m.params.svcOrderId ?? undefined;
    let foreign = false;
    // Shipped or delivered: the sweeper asks the supplier; an end or a connection goes to the order.
    const shipping =
      news.kind === 'order' &&
      reachedStatus(news.orderStatus, OrderStatus.Shipped) &&
      !endedStatus(news.orderStatus);
    if (orderNumber !== undefined) {
      const id = orderWorkflowId(orderNumber, this.account.id);
      const result = shipping
        ? await this.targets.push(id, news, this.pushed)
        : await this.targets.signal(id, news);
      if (result === 'signalled') {
        this.trackingTold.remember(news);
        return { outcome: 'delivered', workflowIds: [id] };
      }
      if (result === 'closed') return { outcome: 'closed', workflowIds: [id] };
      // `foreign`: the id is another account's order; for this account, no such order.
      foreign = result === 'foreign';
      if (m.messageType === WebhookChange.OrderConnected) {
        const waiting = await this.targets.inStage(Stage.AWAITING_CONNECTION, orderNumber);
        const routed = fromDelivery(await this.targets.signalAll(waiting, news));
        if (routed) return routed;
      }
    }
    if (svcOrderId !== undefined) {
      const routed = await this.bySvcOrderId(svcOrderId, news, shipping);
      if (routed) return routed;
    }
    return unroutable(
      `no order workflow of this account for ${[
        orderNumber !== undefined ? `orderNumber ${orderNumber}` : undefined,
        svcOrderId !== undefined ? `svc order ${svcOrderId}` : undefined,
      ]
        .filter(Boolean)
        .join(' or ')}${foreign ? ' (its workflow id is held by another account: not told)' : ''}`,
      // The workflow id is exact; only a visibility-only look-up may be trailing.
      orderNumber === undefined,
      // Reached only when `order:<orderNumber>` was missing (or another account's).
      orderNumber !== undefined,
      foreign,
    );
  }

  private async logistics(m: LogisticMessage): Promise<RouteOutcome> {
    const news = logisticsNews(m);
    if (!this.trackingTold.isNew(news)) {
      return {
        outcome: 'skipped',
        reason: 'its tracking number and link were told already',
        duplicate: true,
      };
    }
    const routed = await this.bySvcOrderId(m.params.orderId, news, true);
    if (routed?.outcome === 'delivered') this.trackingTold.remember(news);
    return routed ?? unroutable(`no order workflow holds svc order ${m.params.orderId}`, true);
  }

  private async makeup(m: MakeupMessage): Promise<RouteOutcome> {
    const news = makeupNews(m);
    if (m.params.status === MakeupStatus.Paid) {
      // Fails only when Temporal does: the webhook is answered 503 and the supplier retries.
      await tellCheckoutToppedUp(this.client, this.queues, this.checkout, this.account);
      return { outcome: 'delivered', workflowIds: [checkoutWorkflowId(this.scope)] };
    }
    const related = m.params.relationOrderId ?? undefined;
    if (related === undefined) return unroutable('a makeup message for no order', false);
    const routed = await this.bySvcOrderId(related, news);
    return routed ?? unroutable(`no order workflow holds svc order ${related}`, true);
  }

  /** `shipping`: news the sweeper confirms (pushedOrders.ts), not told to the order as it came. */
  private async bySvcOrderId(
    svcOrderId: string,
    news: SupplierNews,
    shipping = false,
  ): Promise<RouteOutcome | undefined> {
    const found = await this.targets.bySvcOrderId(svcOrderId);
    const delivery = await this.targets.signalAll(
      found.running,
      news,
      shipping ? this.pushed : undefined,
    );
    return fromDelivery({
      signalled: delivery.signalled,
      closed: [...delivery.closed, ...found.closed],
    });
  }

  /** The account's catalogue-events workflow, started on first use. */
  private async catalogue(m: WebhookMessage, receivedAt: Date): Promise<RouteOutcome> {
    const workflowId = catalogueEventsId(this.scope);
    await this.client.workflow.signalWithStart(CATALOGUE_EVENTS_WORKFLOW, {
      ...accountStartOptions(this.account, WorkflowPriority.Singleton),
      workflowId,
      taskQueue: this.queues.orders,
      args: [{}],
      signal: catalogueEventSignal,
      signalArgs: [webhookEvent(m, receivedAt)],
    });
    return { outcome: 'catalogue', workflowId };
  }
}

/**
 * A top-up was paid: the coordinator reads the balance now and tells the orders it covers. One
 * signal, with start: a coordinator an operator terminated comes back with the deployment's
 * `settings` (its budgets too), and its waiting orders re-join it.
 */
async function tellCheckoutToppedUp(
  client: Client,
  queues: TaskQueues,
  settings: CheckoutSettings,
  account: AccountRef,
): Promise<void> {
  await client.workflow.signalWithStart(CHECKOUT_WORKFLOW, {
    ...checkoutStartOptions(accountScope(queuePrefix(queues), account.id), queues.orders, settings),
    ...accountStartOptions(account, WorkflowPriority.Singleton),
    signal: checkoutFundsSignal,
    signalArgs: [{ kind: 'toppedUp' }],
  });
}
