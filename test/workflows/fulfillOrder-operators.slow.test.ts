/**
 * Orders that wait for a person or an outside event: insufficient balance, the payment approval
 * policy, an unconnected store product, and cancelling before payment.
 */
import { describe, expect, it } from 'vitest';
import {
  approvePaymentUpdate,
  cancelUpdate,
  resumeUpdate,
  Stage,
  supplierEventSignal,
} from '../../src/order/contract.js';
import { accountStats, setBalance as setAccountBalance, takenCalls } from '../support/sandbox.js';
import {
  reachStage,
  startOrder,
  validOrder,
  visibleIn,
  useOrderHarness,
} from '../support/orders.js';
import {
  connectAtSupplier,
  editOrder,
  orderNumber,
  storeFlowOrder,
  usOrder,
} from '../supplier/orderHelpers.js';

// No money: the first payment meets 1604000.
const h = useOrderHarness('operators', 0);

const setBalance = (amount: number) => setAccountBalance(h.account.openId, amount);

describe('orders waiting for people and events', () => {
  it('1604000 stops at AWAITING_FUNDS with the code; a top-up (makeup PAID) takes it onward', async () => {
    const handle = await startOrder(h, validOrder({ ...usOrder(), fulfillment: { flow: 'B' } }));
    const waiting = await reachStage(handle, Stage.AWAITING_FUNDS);
    expect(waiting.error).toMatchObject({ step: 'payBalanceV2', code: 1604000 });
    expect(waiting.error?.requestId).toMatch(/\w+/);

    await setBalance(1_000);
    await handle.signal(supplierEventSignal, {
      messageId: `makeup-${orderNumber('m')}`,
      kind: 'makeup',
      makeupStatus: 'PAID',
    });
    const paid = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(paid.error).toBeUndefined();
    expect((await accountStats(h.account.openId)).payments).toBe(1);
  });

  it('the approval policy waits at AWAITING_APPROVAL until approvePayment', async () => {
    await setBalance(1_000);
    const input = validOrder({
      ...usOrder(),
      fulfillment: { flow: 'B', payment: { policy: 'upTo', maxAmount: 5 } },
    });
    const handle = await startOrder(h, input);
    const waiting = await reachStage(
      handle,
      Stage.AWAITING_APPROVAL,
      (s) => s.waitingFor !== undefined,
    );
    expect(waiting.waitingFor).toMatch(/above the automatic limit of 5 USD/);
    // Operators find it among the orders that need a person.
    await visibleIn(h, input.order.orderNumber, Stage.AWAITING_APPROVAL, 'NeedsAttention = true');
    const before = (await accountStats(h.account.openId)).payments;

    const approved = await handle.executeUpdate(approvePaymentUpdate, { args: [{ by: 'test' }] });
    expect(approved.accepted).toBe(true);
    const paid = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect((await accountStats(h.account.openId)).payments).toBe(before + 1);
    // The wait ended with its action: nothing of it lingers for operators.
    expect(paid.waitingFor).toBeUndefined();
    await visibleIn(h, input.order.orderNumber, Stage.AWAITING_SHIPMENT, 'NeedsAttention = false');
  });

  it('an unconnected store product waits at AWAITING_CONNECTION; after connecting, resume continues', async () => {
    await setBalance(1_000);
    const { order, connection } = storeFlowOrder('w');
    const input = validOrder({ ...order, fulfillment: { flow: 'C' } });
    const handle = await startOrder(h, input);
    await reachStage(handle, Stage.AWAITING_CONNECTION);

    // What `dropflow connect` does.
    await connectAtSupplier(h.account.client, connection('P0002'));
    const resumed = await handle.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
    expect(resumed.accepted).toBe(true);
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(waiting.svcOrderId).toMatch(/\w+/);
  });

  it('cancel before payment deletes the order at the supplier and ends CANCELLED', async () => {
    const handle = await startOrder(
      h,
      validOrder({ ...usOrder({ shippingZip: 'ABCDE' }), fulfillment: { flow: 'B' } }),
    );
    const stopped = await reachStage(handle, Stage.INTERCEPTED);
    const result = await handle.executeUpdate(cancelUpdate, {
      args: [{ reason: 'customer withdrew' }],
    });
    expect(result).toMatchObject({ accepted: true, stage: Stage.CANCELLED });
    const final = (await handle.result()) as { stage: string; timeline: { note?: string }[] };
    expect(final.stage).toBe(Stage.CANCELLED);
    expect(final.timeline.at(-1)?.note).toBe('customer withdrew');
    expect(takenCalls(await accountStats(h.account.openId), 'shopping/order/deleteOrder')).toBe(1);
    const left = await h.account.client.api.getOrderDetailBatch({
      orderIds: [stopped.svcOrderId!],
    });
    expect(left).toEqual([]);
  });

  it('a paid order refuses cancel; a double-clicked resume is carried out once and both answered', async () => {
    await setBalance(1_000);
    // Flow A without a label: paid, then waiting for the waybill.
    const paidInput = validOrder({
      ...usOrder(),
      fulfillment: { flow: 'A', storage: { mode: 'supplier' } },
    });
    const paid = await startOrder(h, paidInput);
    await reachStage(paid, Stage.AWAITING_WAYBILL);
    const refusal = await paid.executeUpdate(cancelUpdate, { args: [{ reason: 'too late' }] }).then(
      () => undefined,
      (e: unknown) => e as { cause?: { message?: string } },
    );
    expect(refusal?.cause?.message).toMatch(/cancel refused: the order is paid/);

    const input = validOrder({ ...usOrder({ shippingZip: 'ABCDE' }), fulfillment: { flow: 'B' } });
    const handle = await startOrder(h, input);
    const stopped = await reachStage(handle, Stage.INTERCEPTED);
    await editOrder(stopped.svcOrderId!, { shippingZip: '90210' });
    const answers = await Promise.allSettled([
      handle.executeUpdate(resumeUpdate, { args: [{ by: 'first' }] }),
      handle.executeUpdate(resumeUpdate, { args: [{ by: 'second' }] }),
    ]);
    const accepted = answers.filter((a) => a.status === 'fulfilled' && a.value.accepted);
    expect(accepted).toHaveLength(1);
    // The other was refused (it came too late) or answered as already handled: never left hanging.
    const other = answers.find((a) => !(a.status === 'fulfilled' && a.value.accepted));
    expect(
      other?.status === 'rejected' ||
        (other?.status === 'fulfilled' && /already handled/.test(other.value.message)),
    ).toBe(true);
    await reachStage(handle, Stage.AWAITING_SHIPMENT);
  });
});
