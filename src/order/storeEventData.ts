/** What `order.needs_attention` tells the store about a stop, from the order's status. */
import { Stage, type OrderStatus } from './contract.js';
import type { OrderNeedsAttentionData } from '../storeEvents/contract.js';

/** Why an order stops in a stage, when no failure or interception says more. */
const STOP_REASONS: Partial<Record<Stage, string>> = {
  [Stage.AWAITING_APPROVAL]: 'the payment waits for approval',
  [Stage.AWAITING_WAYBILL]: 'the warehouse needs the waybill (carrier, tracking number, label)',
  [Stage.AWAITING_CONNECTION]: 'a store product is not connected to a catalogue product yet',
  [Stage.AWAITING_FUNDS]: 'the balance does not cover the payment',
};

export function stopData(s: OrderStatus): OrderNeedsAttentionData {
  const action = s.waitingFor ?? 'a person';
  if (s.interception !== undefined) {
    const { step, reasons } = s.interception;
    return {
      reason: `the supplier intercepted the order at ${step}: ${reasons.map((r) => r.message).join('; ')}`,
      action,
      step,
      reasons: reasons.map((r) => ({
        ...(r.code !== undefined && { code: r.code }),
        message: r.message,
      })),
    };
  }
  const e = s.error;
  return {
    reason: e?.message ?? STOP_REASONS[s.stage] ?? `the order waits at ${s.stage}`,
    action,
    ...(e !== undefined && { step: e.step, message: e.message }),
    ...(e?.code !== undefined && { code: e.code }),
    ...(e?.requestId !== undefined && { requestId: e.requestId }),
  };
}
