/**
 * The checkout coordinator's state (src/checkout/state.ts) on its own: what a cancel
 * may take back, what the funds list holds, and what one run hands the next. The workflow around
 * it is tested against a real server in checkout-coordinator.slow.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ReadyOrder } from '../../src/checkout/contract.js';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/terms/checkoutSettings.js';
import { CARRY_BUDGET, CheckoutState, type CheckoutCarryOver } from '../../src/checkout/state.js';

const NEVER = 600_000;

function state(from: Partial<CheckoutCarryOver> = {}): CheckoutState {
  return new CheckoutState({
    settings: {
      ...DEFAULT_CHECKOUT_SETTINGS,
      quietMs: NEVER,
      maxWaitMs: NEVER,
      fundsCheckMs: NEVER,
    },
    queue: [],
    funds: [],
    batchesDone: 0,
    ordersPaid: 0,
    nextBatch: 0,
    ...from,
  });
}

const order = (n: number, amount = 10): ReadyOrder => ({
  workflowId: `order:N${n}`,
  svcOrderId: `SVC${n}`,
  amount,
  lagMs: 5_000,
  readyAt: new Date(Date.UTC(2026, 10, 25, 12, 0, n)).toISOString(),
});

describe('an order its batch released', () => {
  it('is answered for until told its outcome: an order that asks past its bound waits for it', () => {
    const c = state();
    c.ready(order(1));
    c.ready(order(2));
    const batch = c.takeBatch();
    c.committing(batch, 'payBalanceV2');
    c.released(batch, ['order:N1', 'order:N2'], {
      kind: 'paid',
      batchId: batch.id,
      shipmentOrderId: 'SH1',
      payId: 'P1',
    });
    c.batchFinished(batch);
    // Its outcome is on its way (the tell activity may wait behind a backlog): not forgotten.
    expect(c.member('order:N1')).toEqual({ state: 'released', outcome: 'paid' });
    c.told(['order:N1', 'order:N2']);
    expect(c.member('order:N1')).toEqual({ state: 'unknown' });
  });
});

describe('a cancel', () => {
  it('takes an order back only before a batch call that may act has included it', () => {
    const c = state();
    c.ready(order(1));
    c.ready(order(2));
    c.ready(order(3));
    const batch = c.takeBatch();
    expect(c.withdraw('order:N1')).toEqual({ kind: 'withdrawn' });
    expect(batch.orders.map((o) => o.workflowId)).toEqual(['order:N2', 'order:N3']);
    c.committing(batch, 'addCart');
    expect(c.withdraw('order:N2')).toMatchObject({ kind: 'withdrawRefused' });
    expect(c.member('order:N2')).toEqual({ state: 'inBatch', batchId: batch.id, step: 'addCart' });
  });

  it('is refused for an order paying alone: its own steps decide, and it stays on the funds list until it stops waiting', () => {
    const c = state();
    const since = new Date().toISOString();
    c.fundsNews({ kind: 'wait', workflowId: 'order:N5', amount: 20, since });
    expect(c.withdraw('order:N5')).toMatchObject({ kind: 'withdrawRefused' });
    expect(c.member('order:N5')).toEqual({ state: 'awaitingFunds' });
    c.fundsNews({ kind: 'stopWaiting', workflowId: 'order:N5' });
    expect(c.member('order:N5')).toEqual({ state: 'unknown' });
  });

  it('is refused for an order the coordinator does not hold (its outcome may be on its way)', () => {
    expect(state().withdraw('order:N9')).toMatchObject({
      kind: 'withdrawRefused',
      why: expect.stringMatching(/does not hold it/) as unknown,
    });
  });
});

describe('the funds list', () => {
  it('a shipment refused for funds leaves it once every one of its orders stopped waiting', () => {
    const c = state();
    const since = new Date().toISOString();
    c.shipmentShort({
      batchId: 'B1',
      orders: [order(1), order(2)],
      shipmentOrderId: 'S1',
      amount: 20,
      since,
    });
    c.fundsNews({ kind: 'stopWaiting', workflowId: 'order:N1' });
    expect(c.view().awaitingFunds).toHaveLength(1);
    expect(c.member('order:N1')).toEqual({ state: 'unknown' });
    c.fundsNews({ kind: 'stopWaiting', workflowId: 'order:N2' });
    expect(c.view().awaitingFunds).toEqual([]);
  });

  it('counts a shipment paid alone once for all its waiting orders and releases them together', () => {
    const c = state();
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const n of [1, 2, 3]) {
      c.fundsNews({
        kind: 'wait',
        workflowId: `order:N${n}`,
        amount: 90,
        since,
        shipmentOrderId: 'S7',
      });
    }
    c.fundsNews({
      kind: 'wait',
      workflowId: 'order:N4',
      amount: 5,
      since: new Date().toISOString(),
    });
    expect(c.view().awaitingFunds).toHaveLength(2);
    const released = c.release(100, c.fundsCheckStarted());
    expect(released).toMatchObject([
      { kind: 'shipmentWaiters', workflowIds: ['order:N1', 'order:N2', 'order:N3'] },
      { kind: 'waiter', workflowId: 'order:N4' },
    ]);
  });

  it('a top-up heard while the balance was read asks for another read', () => {
    const c = state();
    c.fundsNews({
      kind: 'wait',
      workflowId: 'order:N1',
      amount: 50,
      since: new Date().toISOString(),
    });
    c.fundsNews({ kind: 'toppedUp' });
    const reading = c.fundsCheckStarted();
    c.fundsNews({ kind: 'toppedUp' });
    c.release(10, reading);
    expect(c.fundsCheckDue(Date.now())).toBe(true);
  });
});

describe('what one run hands the next', () => {
  it('a top-up not yet acted on is carried over', () => {
    const c = state();
    c.fundsNews({
      kind: 'wait',
      workflowId: 'order:N1',
      amount: 50,
      since: new Date().toISOString(),
    });
    c.fundsNews({ kind: 'toppedUp' });
    const next = state(c.carryOver().carried);
    expect(next.fundsCheckDue(Date.now())).toBe(true);
  });

  it('stays under its budget whatever the backlog, keeping the oldest and every confirmed shipment', () => {
    // A sale-day backlog, as a run may have gathered it.
    const c = state({ queue: Array.from({ length: 20_000 }, (_, n) => order(n)) });
    const since = new Date().toISOString();
    for (let n = 0; n < 20; n++) {
      const orders = Array.from({ length: 50 }, (_, i) => order(100_000 + n * 50 + i));
      c.shipmentShort({ batchId: `B${n}`, orders, shipmentOrderId: `S${n}`, amount: 500, since });
    }
    const { carried, leftOut } = c.carryOver();
    expect(JSON.stringify(carried).length).toBeLessThanOrEqual(CARRY_BUDGET);
    expect(leftOut).toBeGreaterThan(0);
    expect(carried.queue[0]?.workflowId).toBe('order:N0');
    expect(carried.funds.filter((w) => w.kind === 'shipment')).toHaveLength(20);
  });
});
