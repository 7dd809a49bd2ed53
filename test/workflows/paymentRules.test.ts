/**
 * An order's money and what it allows (src/order/paymentRules.ts) on its own: cancel is open only
 * while nothing is paid, sent or in doubt and no shipment is shared. The workflow around it is
 * tested against a real server in reconcile-payment.test.ts and checkout-bounds.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PaymentRules, type PaymentHost } from '../../src/order/paymentRules.js';
import { Stage, type OrderStatus } from '../../src/order/contract.js';

/** What the money shows and tells, as a workflow's parts would: here, the stages it entered. */
function newRules(entered: Stage[] = [], status: Partial<OrderStatus> = {}): PaymentRules {
  const host: PaymentHost = {
    view: {
      status: { timeline: [], ...status } as unknown as OrderStatus,
      stage: Stage.RECEIVED,
      enter: (stage) => void entered.push(stage),
      note: () => undefined,
      record: () => undefined,
      passedThrough: () => undefined,
      returnsTo: () => undefined,
    },
    deadlines: { reached: () => undefined },
    notices: { once: () => undefined },
  };
  return new PaymentRules(host);
}

describe('cancel', () => {
  it('is open until a payment leaves, and again once the supplier refused it', () => {
    const m = newRules();
    expect(m.cancellable).toBe(true);
    m.sending();
    expect(m.cancelRefusal).toBe('a payment is under way or made; open a dispute instead');
    m.refused();
    expect(m.cancellable).toBe(true);
  });

  it('stays shut while a payment is in doubt, also once proven unpaid and sent again', () => {
    const m = newRules();
    m.sending();
    m.inDoubt();
    m.refused(); // a refusal of the resend cannot undo the doubt
    expect(m.cancellable).toBe(false);
    m.provenUnpaid();
    expect(m.cancellable).toBe(false);
    m.refused();
    expect(m.cancellable).toBe(true);
  });

  it('is refused for a shipment shared with other orders, naming it, until it is paid', () => {
    const entered: Stage[] = [];
    const m = newRules(entered);
    m.confirmedInBatch('SH1', { siblings: ['order:N2'] });
    expect(m.cancelRefusal).toMatch(
      /^cancel refused: it is confirmed into shipment SH1.*1 other order /,
    );
    expect(m.siblings).toEqual(['order:N2']);
    m.made();
    expect(entered).toEqual([Stage.PAID]);
    expect(m.shipmentRefusal).toBeUndefined();
    expect(m.paidItsShipment).toBe(true);
  });

  it('is open for a shipment the order has alone', () => {
    const m = newRules();
    m.confirmedInBatch('SH1', { siblings: [] });
    expect(m.cancellable).toBe(true);
  });
});

describe('what the checkout coordinator said', () => {
  const paid = (shipmentOrderId: string) =>
    ({ kind: 'paid', batchId: 'b1', shipmentOrderId, payId: 'P1' }) as const;

  it('is taken one by one, in arrival order', () => {
    const m = newRules();
    expect(m.outcomeWaiting).toBe(false);
    m.heard({ kind: 'awaitingFunds', why: 'short' });
    m.heard(paid('SH1'));
    expect(m.outcomeWaiting).toBe(true);
    expect(m.nextOutcome()?.kind).toBe('awaitingFunds');
    expect(m.nextOutcome()?.kind).toBe('paid');
    expect(m.outcomeWaiting).toBe(false);
    expect(m.nextOutcome()).toBeUndefined();
  });

  it("pays the order with a sibling's word once it goes on alone, only for its own shipment", () => {
    const m = newRules([], { shipmentOrderId: 'SH1' });
    m.heard(paid('SH1')); // still in its batch: its own outcome
    expect(m.nextOutcome()?.kind).toBe('paid');
    m.checkingOutAlone();
    m.heard(paid('SH9'));
    expect(m.siblingPayment).toBeUndefined();
    m.heard(paid('SH1'));
    expect(m.outcomeWaiting).toBe(false);
    expect(m.siblingPayment?.payId).toBe('P1');
    expect(m.paidBySibling()).toBe(true);
    expect(m.siblingPayment).toBeUndefined();
    expect(m.paidItsShipment).toBe(false);
  });
});
