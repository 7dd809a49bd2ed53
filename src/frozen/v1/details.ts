/**
 * The order summary shown in the Temporal UI (setCurrentDetails): order/details.ts and
 * order/orderGlance.ts as they were on 2026-11-28, less the parcels and the store's backlog,
 * which these runs never hold.
 */
import type { OrderStatus } from '../../order/contract.js';
import { Stage } from '../common/contracts.js';
import { failureText } from '../common/supplier.js';

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

export function renderDetails(s: OrderStatus): string {
  const g = glanceOf(s);
  const lines = [
    `**${g.stage}** — ${g.reason} — ${g.next}`,
    `order ${s.orderNumber}, flow ${s.flow}`,
  ];
  if (s.svcOrderId) lines.push(`supplier order: ${s.svcOrderId}`);
  if (s.logisticName) lines.push(`logistics: ${s.logisticName}`);
  if (s.amounts?.orderAmount !== undefined) lines.push(`amount: ${s.amounts.orderAmount} USD`);
  if (s.trackNumber)
    lines.push(`tracking: ${s.trackNumber}${s.trackingUrl ? ` (${s.trackingUrl})` : ''}`);
  if (s.interception) {
    lines.push(`intercepted at ${s.interception.step}:`);
    for (const r of s.interception.reasons) lines.push(`- ${r.code ?? ''} ${r.message}`.trim());
  }
  if (s.error) {
    lines.push(
      `error at ${failureText(s.error)}` +
        (s.error.code !== undefined
          ? ` (code ${s.error.code}` +
            (s.error.requestId ? `, requestId ${s.error.requestId})` : ')')
          : ''),
    );
  }
  return lines.join('\n\n');
}

function glanceOf(s: OrderStatus): Glance & { stage: Stage } {
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
  } else if (s.stage === Stage.SHIPPED && s.trackNumber !== undefined) {
    reason = `with the carrier, tracking ${s.trackNumber}`;
  } else if (s.stage === Stage.CANCELLED || s.stage === Stage.COMPLETED) {
    reason = s.timeline.at(-1)?.note ?? reason;
  }
  return { stage: s.stage, reason, next: s.waitingFor ?? base.next };
}
