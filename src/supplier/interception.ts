/**
 * The supplier's interception of an order, in dropflow's words: why it stopped an order (at
 * creation, in the cart, at confirmation, at the parent order), read from its answers. The order
 * shows the reasons in its status; a checkout batch tells each stopped order its own.
 */
import {
  interceptedOrderId,
  type InterceptedOrder,
  type InterceptReason as SupplierReason,
} from './api/orders.js';

/** Why the supplier intercepted an order, as it says. */
export interface Reason {
  code?: number;
  message: string;
}

/** Where an order stands after a cart step: through, or stopped with the supplier's reasons. */
export interface StepOutcome {
  intercepted: boolean;
  reasons: Reason[];
}

export const toReason = (r: SupplierReason): Reason => ({
  ...(r.code != null && { code: r.code }),
  message: r.message ?? 'intercepted (no reason given)',
});

/** Whether `svcOrderId` is among the intercepted entries, and the reasons they give. */
export function interception(entries: InterceptedOrder[], svcOrderId: string): StepOutcome {
  const mine = entries.filter((e) => interceptedOrderId(e) === svcOrderId);
  if (mine.length === 0) return { intercepted: false, reasons: [] };
  const reasons = mine.flatMap((e) =>
    typeof e === 'string'
      ? []
      : [
          ...e.interceptOrderReasons.map(toReason),
          ...(e.logisticsMiss === true
            ? [{ message: 'logisticsMiss: the logistics line does not serve this route' }]
            : []),
        ],
  );
  return {
    intercepted: true,
    reasons: reasons.length > 0 ? reasons : [{ message: 'intercepted' }],
  };
}
