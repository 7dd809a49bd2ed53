/** The one-line view of an order: "STAGE — reason — what moves it on". */
import { describe, expect, it } from 'vitest';

import { Stage, type OrderStatus } from '../../src/order/contract.js';
import { orderGlance } from '../../src/order/orderGlance.js';

const at = (stage: Stage, more: Partial<OrderStatus> = {}): OrderStatus => ({
  orderNumber: 'N-1',
  flow: 'B',
  stage,
  timeline: [],
  ...more,
});

describe('orderGlance', () => {
  it('names an interception with its codes and the actions that move it on', () => {
    const s = at(Stage.INTERCEPTED, {
      interception: { step: 'addCart', reasons: [{ code: 100102, message: 'zip is invalid' }] },
      waitingFor: 'resume after fixing the cause at the supplier, changeLogistics, or cancel',
    });
    expect(orderGlance(s)).toBe(
      'INTERCEPTED — intercepted at addCart: 100102 zip is invalid — resume after fixing the cause at the supplier, changeLogistics, or cancel',
    );
  });

  it('names a failed step with the supplier code', () => {
    const s = at(Stage.NEEDS_ATTENTION, {
      error: { step: 'createOrderV3', message: 'param error: vid', code: 1600100, requestId: 'r1' },
      waitingFor: 'resume after the cause of createOrderV3 is fixed, or cancel',
    });
    expect(orderGlance(s)).toBe(
      'NEEDS_ATTENTION — createOrderV3: param error: vid (code 1600100) — resume after the cause of createOrderV3 is fixed, or cancel',
    );
  });

  it('says what an order at work waits for, and the tracking once shipped', () => {
    expect(orderGlance(at(Stage.AWAITING_SHIPMENT))).toBe(
      "AWAITING_SHIPMENT — paid, at the warehouse — the supplier's shipment (webhook or tracking sweep)",
    );
    expect(orderGlance(at(Stage.SHIPPED, { trackNumber: 'SBX1' }))).toBe(
      'SHIPPED — with the carrier, tracking SBX1 — delivery (webhook or tracking sweep)',
    );
    expect(orderGlance(at(Stage.AWAITING_APPROVAL))).toBe(
      'AWAITING_APPROVAL — the payment waits for approval — approvePayment, or cancel',
    );
  });

  it('a lost answer says that dropflow looks it up before sending anything again', () => {
    const s = at(Stage.AWAITING_PAYMENT, {
      outcomeUnknown: { step: 'payBalanceV2', since: '2026-11-23T10:00:00Z' },
    });
    expect(orderGlance(s)).toMatch(/^AWAITING_PAYMENT — the answer to payBalanceV2 was lost; /);
  });

  it('a finished order gives its last note', () => {
    const s = at(Stage.CANCELLED, {
      timeline: [{ stage: Stage.CANCELLED, at: '2026-11-23T10:00:00Z', note: 'customer asked' }],
    });
    expect(orderGlance(s)).toBe('CANCELLED — customer asked — nothing');
  });
});
