/**
 * An order in one line, as operators read it in the Temporal UI (Summary and the first line of
 * Current Details) and in `dropflow status`: "STAGE — reason — what moves it on".
 * Sandbox-safe: used by workflow code.
 */
import { ParcelStage, Stage, type OrderStatus, type ParcelView } from './contract.js';
import { failureText } from '../supplier/failureDetails.js';
import type { StoreOrderRef } from '../store/contract.js';

interface Glance {
  reason: string;
  next: string;
}

/** Where an order at work stands and what it waits for, when nothing more specific is known. */
const AT_WORK: Record<Stage, Glance> = {
  RECEIVED: { reason: 'handed over', next: 'dropflow plans it and creates it at the supplier' },
  ON_HOLD: {
    reason: "in the store's hold window",
    next: 'the end of the window (a cancellation or edit in the store comes first), or cancel',
  },
  AWAITING_MAPPING: {
    reason: 'a store SKU maps to no supplier variant',
    next: 'dropflow store map <store> <sku> <vid>, or cancel',
  },
  CREATED: {
    reason: 'created at the supplier',
    next: 'dropflow carts, confirms and pays it with its checkout batch',
  },
  IN_CART: { reason: 'in the cart', next: 'dropflow confirms it' },
  CONFIRMED: { reason: 'confirmed into a shipment', next: 'dropflow generates and pays it' },
  AWAITING_PAYMENT: { reason: 'the payment is due', next: 'dropflow pays it from the balance' },
  PAID: { reason: 'paid', next: 'the warehouse ships it' },
  AWAITING_WAYBILL: {
    reason: 'the warehouse needs the waybill',
    next: 'provideWaybill (dropflow waybill …)',
  },
  AWAITING_SHIPMENT: {
    reason: 'paid, at the warehouse',
    next: "the supplier's shipment (webhook or tracking sweep)",
  },
  SHIPPED: { reason: 'with the carrier', next: 'delivery (webhook or tracking sweep)' },
  DELIVERED: { reason: 'delivered', next: 'the proof of delivery, or the end of its wait' },
  COMPLETED: { reason: 'done', next: 'nothing' },
  INTERCEPTED: {
    reason: 'intercepted by the supplier',
    next: 'resume after fixing the cause, changeLogistics, or cancel',
  },
  AWAITING_FUNDS: {
    reason: 'the balance does not cover the payment',
    next: 'a balance top-up, resume, or cancel',
  },
  AWAITING_APPROVAL: {
    reason: 'the payment waits for approval',
    next: 'approvePayment, or cancel',
  },
  AWAITING_CONNECTION: {
    reason: 'a store product is not connected to a catalogue product',
    next: 'the connection (webhook, or dropflow connect then resume), or cancel',
  },
  NEEDS_ATTENTION: { reason: 'a step failed', next: 'resume after the fix, or cancel' },
  CANCELLED: { reason: 'cancelled', next: 'nothing' },
};

export function orderGlance(s: OrderStatus): string {
  const g = glanceOf(s);
  return `${g.stage} — ${g.reason} — ${g.next}`;
}

export function glanceOf(s: OrderStatus): Glance & { stage: Stage } {
  const base = AT_WORK[s.stage];
  let reason = base.reason;
  if (s.interception !== undefined) {
    const why = s.interception.reasons
      .map((r) => (r.code !== undefined ? `${r.code} ${r.message}` : r.message))
      .join('; ');
    reason = `intercepted at ${s.interception.step}: ${why}`;
  } else if (s.error !== undefined && s.stage !== Stage.COMPLETED) {
    reason = `${failureText(s.error)}${s.error.code !== undefined ? ` (code ${s.error.code})` : ''}`;
  } else if (s.outcomeUnknown !== undefined) {
    reason = `the answer to ${s.outcomeUnknown.step} was lost; dropflow looks it up before anything is sent again`;
  } else if (s.stage === Stage.SHIPPED && parcelsGlance(s.parcels) !== undefined) {
    reason = `with the carrier, ${parcelsGlance(s.parcels)}`;
  } else if (s.stage === Stage.SHIPPED && s.trackNumber !== undefined) {
    reason = `with the carrier, tracking ${s.trackNumber}`;
  } else if (s.stage === Stage.CANCELLED || s.stage === Stage.COMPLETED) {
    reason = s.timeline.at(-1)?.note ?? reason;
  }
  return { stage: s.stage, reason, next: s.waitingFor ?? base.next };
}

/**
 * The Summary an order starts with. A static summary cannot change later, so it names the order
 * and points to where its stage stands; a stage written here would go stale.
 */
export function startSummary(
  orderNumber: string,
  flow: string,
  store?: Pick<StoreOrderRef, 'platform' | 'orderName' | 'orderId'>,
): string {
  const from =
    store === undefined
      ? ''
      : ` (store order ${store.orderName}, ${store.platform} id ${store.orderId})`;
  return `order ${orderNumber}${from}, flow ${flow} — stage, reason and what moves it on: first line of Current Details`;
}

/** `2 of 3 delivered` (and the cancelled ones), for a glance at a split order. */
export function parcelsGlance(parcels: readonly ParcelView[] | undefined): string | undefined {
  const leaves = (parcels ?? []).filter((p) => p.stage !== ParcelStage.SPLIT);
  if (leaves.length === 0) return undefined;
  const count = (stage: ParcelStage) => leaves.filter((p) => p.stage === stage).length;
  const cancelled = count(ParcelStage.CANCELLED);
  return (
    `${count(ParcelStage.DELIVERED)} of ${leaves.length} parcels delivered` +
    (cancelled > 0 ? `, ${cancelled} cancelled` : '')
  );
}
