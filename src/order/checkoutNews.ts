/**
 * What the account's checkout coordinator told one order (signal `checkoutOutcome`), written by
 * this class alone and kept in arrival order for the order's checkout step to take one by one. A
 * sibling's word that their shared shipment is paid goes to the payment rules instead
 * (PaymentRules.heardPaid), which keep it until the order takes it.
 */
import type { CheckoutOutcome } from '../checkout/contract.js';
import type { PaymentRules } from './paymentRules.js';

export class CheckoutNews {
  private readonly inbox: CheckoutOutcome[] = [];

  /** `shipmentOrderId`: the shipment the order was confirmed into, once it was. */
  constructor(
    private readonly money: PaymentRules,
    private readonly shipmentOrderId: () => string | undefined,
  ) {}

  heard(outcome: CheckoutOutcome): void {
    if (this.money.heardPaid(outcome, this.shipmentOrderId())) return;
    this.inbox.push(outcome);
  }

  /** Whether news waits to be taken. */
  get waiting(): boolean {
    return this.inbox.length > 0;
  }

  /** The oldest news not taken yet (none: undefined). */
  next(): CheckoutOutcome | undefined {
    return this.inbox.shift();
  }
}
