/**
 * The margin guard (docs/margin-guard.md) against the sandbox: the supplier's price or postage
 * rises between create and payment. Batches close by size (maxBatch 2) so the test changes the
 * price while the orders wait for their batch, before anything is carted.
 */
import { describe, expect, it } from 'vitest';
import {
  approvePaymentUpdate,
  cancelUpdate,
  Stage,
  type OrderStatus,
} from '../../src/order/contract.js';
import { findLine, findVariant, postage } from '../../tools/src/sandbox/seed.js';
import { batchSizeOnly, NEVER } from '../support/checkoutSettings.js';
import { reachStage, startOrder, useOrderHarness, validOrder } from '../support/orders.js';
import { accountStats, takenCalls } from '../support/sandbox.js';
import { orderNumber, raisePostage, raisePrice, usOrder } from '../supplier/orderHelpers.js';

const h = useOrderHarness('margin', 10_000, {
  checkout: { quietMs: NEVER, maxWaitMs: NEVER, maxBatch: 2 },
});

const round2 = (n: number) => Math.round(n * 100) / 100;
/** The sandbox's price of two units of P0001-V1, and its postage on a line. */
const variant = findVariant('P0001-V1')!;
const goods = round2(variant.variantSellPrice * 2);
const postageOn = (line: string) => postage(findLine(line)!, variant.variantWeight * 2);
const ORDINARY = 'SvcPacket Ordinary';
const EXPRESS = 'SvcPacket Express';

function order(tag: string, margin?: unknown, salePrice?: number, logisticName = ORDINARY) {
  const base = usOrder({ orderNumber: orderNumber(tag), logisticName });
  return validOrder({
    ...base,
    products: base.products.map((p) => ({
      ...p,
      ...(salePrice !== undefined && { salePrice }),
    })),
    fulfillment: { flow: 'B', ...(margin !== undefined && { margin }) },
  });
}

const waitsForBatch = (s: OrderStatus) => /checkout batch/.test(s.waitingFor ?? '');
const calls = async (path: string) =>
  takenCalls(await accountStats(h.account.openId), `shopping/${path}`);

describe('margin guard', () => {
  it('a price rise between create and pay: the batch takes the order out before it confirms, pays the other, and the order waits for approval with the numbers', async () => {
    await batchSizeOnly(h)({ maxBatch: 2 });
    const costAtCreate = round2(goods + postageOn(ORDINARY));
    // 40 % margin at create; the rule asks 30 %.
    const salePrice = round2(costAtCreate / 0.6 / 2);
    const ruled = await startOrder(h, order('rise', { minPercent: 30 }, salePrice));
    const created = await reachStage(ruled, Stage.CREATED, waitsForBatch);
    expect(created.amounts?.orderAmount).toBe(costAtCreate);

    expect((await raisePrice(created.svcOrderId!, 50)).status).toBe(200);
    const detailsBefore = await calls('order/getOrderDetailBatch');
    const confirmsBefore = await calls('order/addCartConfirm');
    const plain = await startOrder(h, order('plain'));

    const paid = await reachStage(plain, Stage.AWAITING_SHIPMENT);
    const held = await reachStage(ruled, Stage.AWAITING_APPROVAL, (s) => s.margin !== undefined);
    const costNow = round2(round2(variant.variantSellPrice * 1.5) * 2 + postageOn(ORDINARY));
    expect(held.margin).toMatchObject({
      at: 'cart',
      holds: false,
      costAtCreate,
      costNow,
      rule: { minPercent: 30 },
    });
    expect(held.error?.step).toBe('marginGuard');
    expect(held.error?.message).toContain(`landed cost ${costNow.toFixed(2)} USD now`);
    expect(held.error?.message).toContain(`${costAtCreate.toFixed(2)} USD at create`);
    expect(held.waitingFor).toMatch(/approvePayment/);
    // One read for the batch's ruled order; the order left with it and read nothing more.
    expect(await calls('order/getOrderDetailBatch')).toBe(detailsBefore + 1);
    // Express is dearer: no logistics change rescues it; the other order was not held back.
    expect(held.logisticName).toBe(ORDINARY);
    expect(held.shipmentOrderId).toBeUndefined();
    expect(paid.shipmentOrderId).toBeDefined();
    expect(await calls('order/addCartConfirm')).toBe(confirmsBefore + 1);

    await ruled.executeUpdate(approvePaymentUpdate, { args: [{ by: 'test' }] });
    const done = await reachStage(ruled, Stage.AWAITING_SHIPMENT);
    expect(done.margin?.approvedCost).toBe(costNow);
    expect(done.shipmentOrderId).not.toBe(paid.shipmentOrderId);
  });

  it('a postage rise on its line: the order changes to a cheaper line that delivers no later, and pays', async () => {
    const express = postageOn(EXPRESS);
    const maxLandedCostUsd = round2(goods + express + 0.5);
    const surcharge = round2(express - postageOn(ORDINARY) + 5);
    const ruled = await startOrder(h, order('postage', { maxLandedCostUsd }));
    const created = await reachStage(ruled, Stage.CREATED, waitsForBatch);
    expect(created.logisticName).toBe(ORDINARY);

    expect((await raisePostage(h.account.openId, ORDINARY, surcharge)).status).toBe(200);
    try {
      const plain = await startOrder(h, order('postage-plain', undefined, undefined, EXPRESS));
      await reachStage(plain, Stage.AWAITING_SHIPMENT);
      const done = await reachStage(ruled, Stage.AWAITING_SHIPMENT);
      expect(done.logisticName).toBe(EXPRESS);
      expect(done.margin).toMatchObject({
        at: 'payment',
        holds: true,
        costNow: round2(goods + express),
        logistics: {
          from: ORDINARY,
          to: EXPRESS,
          savedUsd: round2(postageOn(ORDINARY) + surcharge - express),
        },
      });
      expect(
        done.timeline.some((t) =>
          /changing logistics from .* to SvcPacket Express/.test(t.note ?? ''),
        ),
      ).toBe(true);
    } finally {
      await raisePostage(h.account.openId, ORDINARY, 0);
    }
  });

  it('a postage rise with no line that keeps the rule and delivers as soon: the order waits for approval', async () => {
    const costAtCreate = round2(goods + postageOn(EXPRESS));
    const ruled = await startOrder(
      h,
      order('express', { maxLandedCostUsd: round2(costAtCreate + 1) }, undefined, EXPRESS),
    );
    const created = await reachStage(ruled, Stage.CREATED, waitsForBatch);
    expect((await raisePostage(h.account.openId, EXPRESS, 3)).status).toBe(200);
    try {
      // The batch's other order rides Ordinary: the surcharge on Express does not touch it.
      const plain = await startOrder(h, order('express-plain'));
      await reachStage(plain, Stage.AWAITING_SHIPMENT);
      const held = await reachStage(ruled, Stage.AWAITING_APPROVAL, (s) => s.margin !== undefined);
      // Ordinary is cheaper but promises a later delivery (12-20 days against 6-10).
      expect(held.logisticName).toBe(EXPRESS);
      expect(held.margin).toMatchObject({ holds: false, costNow: round2(costAtCreate + 3) });
      expect(created.svcOrderId).toBe(held.svcOrderId);
      await ruled.executeUpdate(cancelUpdate, {
        args: [{ by: 'test', reason: 'margin too thin' }],
      });
      await reachStage(ruled, Stage.CANCELLED);
    } finally {
      await raisePostage(h.account.openId, EXPRESS, 0);
    }
  });
});
