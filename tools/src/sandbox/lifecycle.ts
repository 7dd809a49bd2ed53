/**
 * What happens to a paid order: PENDING → PROCESSING → SHIPPED → DELIVERED. A platform-logistics
 * order (shopLogisticsType 1 or 3) stays PENDING until its waybill arrives, since the warehouse
 * starts work only then. Steps happen through POST /__sandbox/orders/<id>/advance, or by
 * themselves every `lifecycleStepMs` when that is above 0. Every status change pushes an order
 * message; SHIPPED and DELIVERED also push a logistics message.
 */
import {
  OrderStatus,
  ShopLogisticsType,
  UnshippedSubStatus,
  WebhookChange,
  WebhookTopic,
  WebhookType,
} from 'dropflow/supplier';
import { setStatus } from './orderBook.js';
import { logisticsWebhookParams } from './orderView.js';
import type { SandboxHost } from './host.js';
import type { SandboxOrder } from './state.js';

/** Where /advance can move a paid order: a subStatus of UNSHIPPED, then the statuses after it. */
export const LIFECYCLE_TARGETS = [
  UnshippedSubStatus.Processing,
  OrderStatus.Shipped,
  OrderStatus.Delivered,
] as const;
export type LifecycleTarget = (typeof LIFECYCLE_TARGETS)[number];
export type AdvanceOutcome = { ok: true } | { ok: false; reason: string };

const STAGES = [UnshippedSubStatus.Pending, ...LIFECYCLE_TARGETS] as const;
type Stage = (typeof STAGES)[number];

/** Where a paid order is in its lifecycle; undefined when it is not paid (or cancelled). */
function stageOf(order: SandboxOrder): Stage | undefined {
  if (order.splitInto !== undefined) return undefined;
  if (order.status === OrderStatus.Unshipped) return order.subStatus ?? UnshippedSubStatus.Pending;
  if (order.status === OrderStatus.Shipped || order.status === OrderStatus.Delivered)
    return order.status;
  return undefined;
}

export function waitsForWaybill(order: SandboxOrder): boolean {
  return order.shopLogisticsType !== ShopLogisticsType.Supplier && order.waybill === undefined;
}

/** A tracking number in the style of the carrier's sandbox: unique per order. */
function trackNumberFor(order: SandboxOrder): string {
  return `SBX${order.svcOrderId.replace(/\D/g, '')}`;
}

const podUrls = (order: SandboxOrder) => [
  `https://sandbox.example.com/pod/${order.svcOrderId}/signature.jpg`,
  `https://sandbox.example.com/pod/${order.svcOrderId}/doorstep.jpg`,
];

/** One step forward from a stage; a refusal says why. */
function step(sb: SandboxHost, order: SandboxOrder, from: Stage): AdvanceOutcome {
  const now = sb.now();
  switch (from) {
    case UnshippedSubStatus.Pending:
      if (waitsForWaybill(order)) {
        return {
          ok: false,
          reason: 'the warehouse waits for the waybill (uploadWaybillInfo) before processing',
        };
      }
      order.processingAt = now;
      setStatus(sb, order, OrderStatus.Unshipped, UnshippedSubStatus.Processing);
      return { ok: true };
    case UnshippedSubStatus.Processing:
      order.shippedAt = now;
      order.trackNumber ??= order.waybill?.trackNumber ?? trackNumberFor(order);
      if (order.waybill) order.trackingProvider ??= order.waybill.carrier;
      setStatus(sb, order, OrderStatus.Shipped);
      emitLogistics(sb, order);
      return { ok: true };
    case OrderStatus.Shipped:
      order.deliveredAt = now;
      order.proofOfDelivery = podUrls(order);
      setStatus(sb, order, OrderStatus.Delivered);
      emitLogistics(sb, order);
      return { ok: true };
    case OrderStatus.Delivered:
      return { ok: false, reason: 'the order is already DELIVERED' };
  }
}

/**
 * Moves a paid order forward to `to`, one step at a time (each step pushes its messages).
 * Already there: nothing happens. Refused when the order is not paid, is past `to`, or (platform
 * logistics) has no waybill yet.
 */
export function advanceOrder(
  sb: SandboxHost,
  order: SandboxOrder,
  to: LifecycleTarget,
): AdvanceOutcome {
  const target = STAGES.indexOf(to);
  let stage = stageOf(order);
  if (stage === undefined) return { ok: false, reason: `the order is ${order.status}, not paid` };
  if (STAGES.indexOf(stage) > target)
    return { ok: false, reason: `the order is already past ${to}` };
  while (STAGES.indexOf(stage) < target) {
    const outcome = step(sb, order, stage);
    if (!outcome.ok) return outcome;
    stage = stageOf(order)!;
  }
  return { ok: true };
}

/** When the order took its last step (or became able to take the next one). */
function lastStepAt(order: SandboxOrder): number {
  return Math.max(
    order.paidAt ?? 0,
    order.waybill?.uploadedAt ?? 0,
    order.processingAt ?? 0,
    order.shippedAt ?? 0,
  );
}

/** How often the timer looks for orders due; the step length itself is state.lifecycleStepMs. */
const TICK_MS = 100;

export class Lifecycle {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly sandbox: SandboxHost) {}

  start(): void {
    if (this.timer) return;
    // A speed given at start (--lifecycle-ms) wins over the one kept in a previous run's state.
    const configured = this.sandbox.options.lifecycleStepMs;
    if (configured > 0 && this.sandbox.state.lifecycleStepMs !== configured) {
      this.sandbox.state.lifecycleStepMs = configured;
      this.sandbox.changed();
    }
    this.timer = setInterval(() => {
      this.tick();
    }, TICK_MS);
    // The lifecycle never keeps the process alive on its own.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Advances every paid order whose step is due by one step. */
  tick(): void {
    const sb = this.sandbox;
    const stepMs = sb.state.lifecycleStepMs;
    if (stepMs <= 0) return;
    const now = sb.now();
    for (const order of Object.values(sb.state.orders)) {
      const stage = stageOf(order);
      if (stage === undefined || stage === OrderStatus.Delivered) continue;
      if (now - lastStepAt(order) < stepMs) continue;
      const next = STAGES[STAGES.indexOf(stage) + 1] as LifecycleTarget;
      advanceOrder(sb, order, next);
    }
  }
}

/** The logistics message the supplier pushes when a parcel ships or arrives. */
function emitLogistics(sb: SandboxHost, order: SandboxOrder): void {
  sb.emit(order.openId, WebhookTopic.Logistics, {
    type: WebhookType.Logistic,
    messageType: WebhookChange.Update,
    params: logisticsWebhookParams(order),
  });
}
