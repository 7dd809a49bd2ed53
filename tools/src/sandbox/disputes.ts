/**
 * Dispute rules of the sandbox: which orders and lines can be disputed, how much, and how a dispute
 * ends. A dispute stays Processing until its resolution time (3 lifecycle steps after creation; never
 * on its own when the automatic lifecycle is off) or until POST /__sandbox/disputes/:id/resolve.
 * Resolution is applied lazily, whenever the account's disputes are read, so no timer is needed.
 */
import {
  DisputeStatus,
  ExpectType,
  FinallyDeal,
  RefundType,
  SupplierCode,
} from 'dropflow/supplier';
import { findOwnOrder, PAID_STATUSES, round2 } from './orderBook.js';
import { paramError, SandboxError } from './routing.js';
import type { Sandbox } from './sandbox.js';
import { findProduct, findVariant } from './seed.js';
import type { OrderLine, SandboxDispute, SandboxOrder } from './state.js';

/** The fixed reasons disputeConfirmInfo offers; createDispute accepts only these ids. */
export const DISPUTE_REASONS = [
  { disputeReasonId: 1, reasonName: 'Item not received' },
  { disputeReasonId: 2, reasonName: 'Damaged' },
  { disputeReasonId: 3, reasonName: 'Wrong item' },
  { disputeReasonId: 4, reasonName: 'Quality issue' },
] as const;

export const SUPPLIER_NAME = 'Sandbox Supplier';

/** Lifecycle steps between a dispute's creation and its automatic resolution. */
const RESOLVE_AFTER_STEPS = 3;

export function reasonName(id: number): string | undefined {
  return DISPUTE_REASONS.find((r) => r.disputeReasonId === id)?.reasonName;
}

export function productImage(pid: string): string {
  return `https://img.sandbox.invalid/products/${pid}.jpg`;
}

/** The account's order, if it may be disputed: created through the API and paid. */
export function disputableOrder(sb: Sandbox, openId: string, orderId: string): SandboxOrder {
  const order = findOwnOrder(sb, openId, orderId);
  if (!order) throw new SandboxError(SupplierCode.OrderNotFound, 'Order not found');
  if (!PAID_STATUSES.has(order.status)) {
    throw paramError(
      'orderId',
      `order status ${order.status} cannot be disputed; only paid orders (UNSHIPPED, SHIPPED, DELIVERED) can`,
    );
  }
  return order;
}

export function disputedOrder(sb: Sandbox, d: SandboxDispute): SandboxOrder | undefined {
  return findOwnOrder(sb, d.openId, d.orderId);
}

export function disputesOf(sb: Sandbox, openId: string): SandboxDispute[] {
  return Object.values(sb.state.disputes).filter((d) => d.openId === openId);
}

/** The order's open dispute that stops the API from opening another (console ones do not). */
export function unfinishedDispute(sb: Sandbox, order: SandboxOrder): SandboxDispute | undefined {
  return disputesOf(sb, order.openId).find(
    (d) => d.orderId === order.svcOrderId && d.status === DisputeStatus.Processing && !d.byConsole,
  );
}

/** Whether getDisputeList shows the dispute yet (the account's `disputeLagMs`). */
export function listedYet(sb: Sandbox, d: SandboxDispute): boolean {
  return d.createdAt <= sb.now() - sb.settingsFor(d.openId).disputeLagMs;
}

/** Units of the line still open to a dispute: those not in a pending or granted one. */
export function disputableQuantity(sb: Sandbox, order: SandboxOrder, line: OrderLine): number {
  const taken = disputesOf(sb, order.openId)
    .filter(
      (d) =>
        d.orderId === order.svcOrderId &&
        (d.status === DisputeStatus.Processing ||
          (d.status === DisputeStatus.Completed && d.finallyDeal !== FinallyDeal.Reject)),
    )
    .flatMap((d) => d.products)
    .filter((p) => p.lineItemId === line.lineItemId)
    .reduce((sum, p) => sum + p.quantity, 0);
  return Math.max(0, line.quantity - taken);
}

/** The catalogue product behind an order line's variant, for the dispute answers. */
export function catalogueView(vid: string) {
  const variant = findVariant(vid);
  const product = variant ? findProduct(variant.pid) : undefined;
  return {
    svcProductId: variant?.pid ?? null,
    svcVariantId: vid,
    productName: product?.productNameEn ?? variant?.variantNameEn ?? null,
    sku: variant?.variantSku ?? null,
    image: variant ? productImage(variant.pid) : null,
  };
}

export interface RequestedLine {
  lineItemId?: string | undefined;
  quantity: number;
  price: number;
}

/**
 * Checks the caller's lines against the order: each names a line of the order (lineItemId may be
 * left out only when there is one line), at most once, for at most its disputable quantity and
 * unit price. Returns the lines with their lineItemId filled in.
 */
export function checkRequestedLines(
  sb: Sandbox,
  order: SandboxOrder,
  requested: RequestedLine[],
): { line: OrderLine; quantity: number; price: number }[] {
  if (unfinishedDispute(sb, order)) {
    throw paramError('orderId', 'an unfinished dispute exists for this order');
  }
  const seen = new Set<string>();
  return requested.map((r, i) => {
    const field = `productInfoList[${i}]`;
    const line =
      r.lineItemId === undefined || r.lineItemId === ''
        ? order.lines.length === 1
          ? order.lines[0]
          : undefined
        : order.lines.find((l) => l.lineItemId === r.lineItemId);
    if (!line) {
      throw paramError(
        `${field}.lineItemId`,
        r.lineItemId
          ? 'is not a line of the order'
          : 'is required when the order has several lines',
      );
    }
    if (seen.has(line.lineItemId)) throw paramError(`${field}.lineItemId`, 'appears twice');
    seen.add(line.lineItemId);
    const max = disputableQuantity(sb, order, line);
    if (r.quantity > max) {
      throw paramError(`${field}.quantity`, `must be at most ${max} (the disputable quantity)`);
    }
    if (r.price > line.sellPrice + 0.005) {
      throw paramError(`${field}.price`, `must be at most ${line.sellPrice} (the unit price)`);
    }
    return { line, quantity: r.quantity, price: r.price };
  });
}

/** What the caller asked for: unit price × quantity over the disputed lines. */
export function requestedAmount(d: SandboxDispute): number {
  return round2(d.products.reduce((sum, p) => sum + p.price * p.quantity, 0));
}

/** When a new dispute resolves by itself; never while the automatic lifecycle is off. */
export function resolveTime(sb: Sandbox, createdAt: number): number {
  const step = sb.state.lifecycleStepMs;
  return step > 0 ? createdAt + RESOLVE_AFTER_STEPS * step : Number.MAX_SAFE_INTEGER;
}

/**
 * Ends a Processing dispute: refund (the requested amount; refundType 1 credits the balance),
 * reissue (a resend order code) or reject. Runs once per dispute: it leaves Processing.
 */
export function resolveDispute(sb: Sandbox, d: SandboxDispute, deal: FinallyDeal): void {
  if (d.status !== DisputeStatus.Processing) return;
  d.status = DisputeStatus.Completed;
  d.finallyDeal = deal;
  d.money = deal === FinallyDeal.Refund ? requestedAmount(d) : 0;
  if (deal === FinallyDeal.Refund && d.refundType === RefundType.Balance) {
    const balance = sb.account(d.openId).balance;
    balance.amount = round2(balance.amount + d.money);
  }
  if (deal === FinallyDeal.Reissue) d.resendOrderCode = sb.nextId('RS');
  sb.changed();
}

/** Resolves the account's disputes whose time has come, as the caller asked (refund or reissue). */
export function settleDueDisputes(sb: Sandbox, openId: string): void {
  const now = sb.now();
  for (const d of disputesOf(sb, openId)) {
    if (d.status === DisputeStatus.Processing && d.resolvesAt <= now) {
      resolveDispute(
        sb,
        d,
        d.expectType === ExpectType.Reissue ? FinallyDeal.Reissue : FinallyDeal.Refund,
      );
    }
  }
}
