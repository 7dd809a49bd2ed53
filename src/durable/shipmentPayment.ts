/**
 * The shipment payment, one for an order paying alone (order/steps/payment.ts) and for a
 * checkout batch (checkout/coordinator.ts): where a shipment's parent order is paid (payBalanceV2,
 * through the reconciling supplier step) and what decides what happens next. It names no area:
 * both hand it the shipment as they keep it.
 *
 * - Paid: the supplier's answer, or its own view of the shipment after an answer was lost.
 * - In doubt (no answer, "pay failed", or a short balance after a payment in doubt): nothing is
 *   sent again until the supplier's view shows the shipment paid or proves it unpaid.
 * - Balance short with nothing in doubt: nothing was paid; the shipment waits for funds.
 * - A payId whose pay window is over is generated again before it is sent.
 * - Any other refusal stops for a person (the step's own rule).
 *
 * The callers issue the same commands as before this was shared: it decides, they act.
 */
import type { FailureInfo } from '../supplier/failureDetails.js';
import { SupplierCode } from '../supplier/errors.js';
import type { Activities } from './activityProxies.js';
import { failureInfo, isBusiness, type SupplierFailure } from './failures.js';
import { supplierStep, type Seen } from './supplierStep.js';
import type { StepHost } from './stepHost.js';

/** The payment's supplier step: an unknown outcome of it is a payment in doubt. */
export const PAYMENT_STEP = 'payBalanceV2';

/** What a refusal of payBalanceV2 means; `other` is left to the reconciling step's own rules. */
export type PaymentRefusal = 'inDoubt' | 'balanceShort' | 'other';

/** `doubted`: this payment's outcome was looked up and not yet proven unpaid. */
export function refusalMeans(f: SupplierFailure, doubted: boolean): PaymentRefusal {
  // "Pay failed" may mean already paid: the supplier's view settles it.
  if (isBusiness(f, SupplierCode.PayFailed)) return 'inDoubt';
  // After a payment in doubt, a short balance may be that payment's own doing.
  if (isBusiness(f, SupplierCode.InsufficientBalance)) return doubted ? 'inDoubt' : 'balanceShort';
  return 'other';
}

export interface ParentOrderToPay {
  shipmentOrderId: string;
  payId: string;
  /** When the supplier stops taking payment for this payId (ISO), if it said. */
  expiresAt?: string | undefined;
}

/** Whether the payId's pay window is over (known only when the supplier said when). */
function expired(parent: ParentOrderToPay): boolean {
  return parent.expiresAt !== undefined && new Date().getTime() >= Date.parse(parent.expiresAt);
}

/** A shipment's parent order, as the caller keeps it. */
export interface ShipmentToPay {
  /** The parent order as it stands now (`renew` may change it). */
  parent: () => ParentOrderToPay;
  /** saveGenerateParentOrder again: the same payId within the pay window, a new one after. */
  renew: () => Promise<void>;
  /**
   * A payment in doubt proven unpaid generates the parent order again before it is sent:
   * `always` (an order alone) or `ifExpired` (a batch).
   */
  renewAfterDoubt: 'always' | 'ifExpired';
  /** Whether the supplier shows the shipment paid (its orders UNSHIPPED or later). */
  paidAtSupplier: () => Promise<Seen<string | undefined>>;
  /** Called just before the payment leaves. */
  sending: () => void;
}

export type PaymentDecision =
  { next: 'paid'; note?: string } | { next: 'awaitFunds'; refusal: FailureInfo };

/** Pays the shipment once, never twice and never unsure, and says what comes next. */
export async function sendPayment(
  host: StepHost,
  acts: Activities,
  shipment: ShipmentToPay,
): Promise<PaymentDecision> {
  let doubted = false;
  if (expired(shipment.parent())) await shipment.renew();
  shipment.sending();
  const result = await supplierStep(host, {
    name: PAYMENT_STEP,
    send: () =>
      acts.supplierOnce.payBalanceV2({
        shipmentOrderId: shipment.parent().shipmentOrderId,
        payId: shipment.parent().payId,
      }),
    lookUp: () => {
      doubted = true;
      return shipment.paidAtSupplier();
    },
    beforeResend: async () => {
      // Proven unpaid after its lag window: a short balance from here on is the balance's own word.
      doubted = false;
      if (shipment.renewAfterDoubt === 'always' || expired(shipment.parent()))
        await shipment.renew();
    },
    doubtful: (f) => refusalMeans(f, doubted) === 'inDoubt',
    expected: (f) => refusalMeans(f, doubted) === 'balanceShort',
    cancellable: false,
  });
  if (result.ok) {
    return {
      next: 'paid',
      ...(result.found && { note: `paid (${result.note ?? 'found at the supplier'})` }),
    };
  }
  return { next: 'awaitFunds', refusal: failureInfo(PAYMENT_STEP, result.failure) };
}
