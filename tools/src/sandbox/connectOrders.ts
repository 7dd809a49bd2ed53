/**
 * Store-flow orders wait, filed as invalid, until every line's store variant is connected to a
 * catalogue variant (docs/supplier-api.md §6.3). Each new connection re-checks the account's
 * waiting orders: an order whose lines are now all connected becomes a normal order priced from the
 * catalogue, and the order topic hears ORDER_CONNNECTED (sic; docs/supplier-api.md §12.5).
 */
import { WebhookChange, WebhookTopic, WebhookType } from 'dropflow/supplier';
import { refreshOrder } from './orderBook.js';
import { orderWebhookParams } from './orderView.js';
import type { Sandbox } from './sandbox.js';
import { findVariant } from './seed.js';
import { DEFAULT_SHOP_ID } from './shops.js';
import type { Connection, OrderLine, SandboxOrder } from './state.js';

/** The connection that links a store-flow order line to the catalogue, if there is one. */
export function connectionFor(
  connections: readonly Connection[],
  openId: string,
  shopId: string,
  line: OrderLine,
): Connection | undefined {
  // Under the store flow the line's vid is the store-side product or variant id.
  const productId = line.storeProductId;
  const variantId = line.storeVariantId ?? line.vid;
  const ofProduct = connections.filter(
    (c) =>
      c.openId === openId &&
      c.shopId === shopId &&
      (productId === undefined || c.platformProductId === productId),
  );
  return (
    ofProduct.find((c) => c.platformVariantId === variantId) ??
    // A line that names only the product takes the product's connection.
    (variantId === productId ? ofProduct[0] : undefined)
  );
}

/** Connects every waiting order of the account whose lines are all connected now. */
export function connectAwaitingOrders(sb: Sandbox, openId: string): SandboxOrder[] {
  const connected: SandboxOrder[] = [];
  for (const order of Object.values(sb.state.orders)) {
    if (order.openId !== openId || !order.awaitingConnection) continue;
    const links = order.lines.map((line) =>
      connectionFor(sb.state.connections, openId, DEFAULT_SHOP_ID, line),
    );
    if (links.some((c) => c === undefined || findVariant(c.svcVariantId) === undefined)) continue;
    order.lines.forEach((line, i) => {
      const svcVariantId = links[i]!.svcVariantId;
      line.storeVariantId ??= line.vid;
      line.vid = svcVariantId;
      line.sellPrice = findVariant(svcVariantId)!.variantSellPrice;
    });
    order.awaitingConnection = false;
    // Prices, postage and interceptions as if the order had been created connected.
    refreshOrder(sb, order);
    sb.emit(openId, WebhookTopic.Order, {
      type: WebhookType.Order,
      messageType: WebhookChange.OrderConnected,
      params: orderWebhookParams(order, sb.now()),
    });
    connected.push(order);
  }
  return connected;
}
