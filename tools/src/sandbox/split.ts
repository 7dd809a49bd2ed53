/**
 * The supplier splits an order (docs/sandbox.md): its lines, partitioned, become new orders with
 * codes of their own and the same order number, paid as the order was, each following its own
 * lifecycle; the order itself is no longer listed. ORDERSPLIT is pushed as the vendor documents
 * it ({originalOrderId, orderSplitTime, splitOrderList[{orderCode, createAt, orderStatus,
 * productList[{sku, vid, quantity, productCode}]}]}), on the order topic. A split asked for before
 * the payment happens at the payment.
 */
import { OrderStatus, WebhookChange, WebhookTopic, WebhookType } from 'dropflow/supplier';
import { round2, setStatus } from './orderBook.js';
import { findVariant } from './seed.js';
import type { SandboxHost } from './host.js';
import type { SandboxOrder } from './state.js';

/** The supplier's internal status number of a new split order (the vendor's sample: 300). */
const SPLIT_ORDER_STATUS = 300;

export type SplitOutcome = { ok: true; codes: string[] } | { ok: false; reason: string };

/** Why `parts` is not a partition of the order's lines into at least two parts, if it is not. */
export function partitionError(
  order: SandboxOrder,
  parts: readonly number[][],
): string | undefined {
  if (parts.length < 2) return 'parts must hold at least 2 parts';
  const all = parts.flat().sort((a, b) => a - b);
  const expected = order.lines.map((_, i) => i);
  if (parts.some((p) => p.length === 0)) return 'every part must hold at least 1 line';
  if (all.length !== expected.length || all.some((v, i) => v !== expected[i]))
    return `parts must hold each line index 0..${order.lines.length - 1} exactly once`;
  return undefined;
}

/** One part per line: the default partition. */
export const linePerPart = (order: SandboxOrder): number[][] => order.lines.map((_, i) => [i]);

/**
 * Splits a paid, unshipped order now into `parts` (line indexes); pushes ORDERSPLIT. `atCreation`:
 * an order not yet in a cart (CREATED), as the supplier may split when it files an order; its new
 * orders are CREATED too, each to be carted and paid.
 */
export function splitOrder(
  sb: SandboxHost,
  order: SandboxOrder,
  parts: number[][],
  { atCreation = false } = {},
): SplitOutcome {
  if (order.splitInto !== undefined) return { ok: false, reason: 'the order is split already' };
  const splittable = atCreation ? OrderStatus.Created : OrderStatus.Unshipped;
  if (order.status !== splittable)
    return {
      ok: false,
      reason: `the order is ${order.status}: only ${splittable} orders are split`,
    };
  const bad = partitionError(order, parts);
  if (bad !== undefined) return { ok: false, reason: bad };
  const now = sb.now();
  const children = parts.map((part, n) => {
    const svcOrderId = `${order.svcOrderId}-${n + 1}`;
    const lines = part.map((i) => ({ ...order.lines[i]! }));
    const productAmount = round2(lines.reduce((s, l) => s + l.sellPrice * l.quantity, 0));
    const child: SandboxOrder = {
      ...structuredClone(order),
      svcOrderId,
      svcOrderCode: `SC${svcOrderId.slice(2)}`,
      lines,
      productAmount,
      postageAmount: n === 0 ? order.postageAmount : 0,
      orderAmount: round2(productAmount + (n === 0 ? order.postageAmount : 0)),
      createdAt: now,
      splitFrom: order.svcOrderId,
      statusHistory: [],
    };
    delete child.pendingSplit;
    sb.state.orders[svcOrderId] = child;
    return child;
  });
  order.splitInto = children.map((c) => c.svcOrderId);
  sb.changed();
  sb.emit(order.openId, WebhookTopic.Order, {
    type: WebhookType.OrderSplit,
    messageType: WebhookChange.Insert,
    params: {
      originalOrderId: order.svcOrderId,
      orderSplitTime: now,
      splitOrderList: children.map((c) => ({
        orderCode: c.svcOrderId,
        createAt: now,
        orderStatus: SPLIT_ORDER_STATUS,
        productList: c.lines.map((l) => ({
          sku: findVariant(l.vid)?.variantSku ?? null,
          vid: l.vid,
          quantity: l.quantity,
          productCode: null,
        })),
      })),
    },
  });
  // Each new order tells its own status, as any order does.
  for (const c of children) {
    const { status, subStatus } = c;
    c.status = OrderStatus.Created;
    setStatus(sb, c, status, subStatus);
  }
  return { ok: true, codes: order.splitInto };
}

/** At the payment: the split asked for before it, if any. */
export function splitAtPayment(sb: SandboxHost, order: SandboxOrder): void {
  const parts = order.pendingSplit;
  if (parts === undefined) return;
  delete order.pendingSplit;
  splitOrder(sb, order, parts);
}
