/**
 * Disputes (docs/supplier-api.md §9): disputable products, confirmation, create (idempotent per
 * businessDisputeId), cancel, list (lagging by the account's `disputeLagMs`) and detail; plus the
 * controls /__sandbox/disputes/:id/resolve and /__sandbox/disputes (a dispute from the console).
 * The rules themselves live in ../disputes.ts.
 */
import { z } from 'zod';
import {
  cancelDispute,
  createDispute,
  disputeConfirmInfo,
  disputeProducts,
  DisputeStatus,
  ExpectType,
  FinallyDeal,
  getDisputeDetail,
  getDisputeList,
  RefundType,
} from 'dropflow/supplier';
import {
  catalogueView,
  checkRequestedLines,
  disputableOrder,
  disputableQuantity,
  DISPUTE_REASONS,
  disputedOrder,
  disputesOf,
  listedYet,
  reasonName,
  requestedAmount,
  resolveDispute,
  resolveTime,
  settleDueDisputes,
  SUPPLIER_NAME,
  unfinishedDispute,
} from '../disputes.js';
import { findOwnOrder, round2 } from '../orderBook.js';
import { paramError, type SandboxRouter } from '../routing.js';
import type { Sandbox } from '../sandbox.js';
import { DEFAULT_SHOP_ID, DEFAULT_SHOP_NAME } from '../shops.js';
import type { OrderLine, SandboxDispute } from '../state.js';
import { control, refuse } from './control.js';

export function registerDisputeRoutes(r: SandboxRouter): void {
  r.serve(disputeProducts, ({ orderId }, account, sb) => {
    settleDueDisputes(sb, account.openId);
    const order = disputableOrder(sb, account.openId, orderId);
    const open = unfinishedDispute(sb, order) !== undefined;
    return {
      orderId: order.svcOrderId,
      orderNumber: order.orderNumber,
      productInfoList: order.lines.map((line) => {
        const quantity = disputableQuantity(sb, order, line);
        return disputableProduct(line, quantity, !open && quantity > 0);
      }),
    };
  });

  r.serve(disputeConfirmInfo, ({ orderId, productInfoList }, account, sb) => {
    settleDueDisputes(sb, account.openId);
    const order = disputableOrder(sb, account.openId, orderId);
    const lines = checkRequestedLines(sb, order, productInfoList);
    const maxProductPrice = round2(lines.reduce((s, l) => s + l.line.sellPrice * l.quantity, 0));
    return {
      orderId: order.svcOrderId,
      orderNumber: order.orderNumber,
      maxProductPrice,
      // The sandbox refunds product cost only: no postage or IOSS share.
      maxPostage: 0,
      maxIossTaxAmount: 0,
      maxIossHandTaxAmount: 0,
      maxAmount: maxProductPrice,
      expectResultOptionList: ['1', '2'],
      productInfoList: lines.map(({ line, quantity }) => disputableProduct(line, quantity, true)),
      disputeReasonList: DISPUTE_REASONS,
    };
  });

  r.serve(createDispute, (input, account, sb) => {
    settleDueDisputes(sb, account.openId);
    // The same businessDisputeId again is the caller retrying: answer as before, open nothing.
    const earlier = disputesOf(sb, account.openId).find(
      (d) => d.businessDisputeId === input.businessDisputeId,
    );
    if (earlier) {
      const order = findOwnOrder(sb, account.openId, input.orderId);
      if (earlier.orderId !== (order?.svcOrderId ?? input.orderId)) {
        throw paramError('businessDisputeId', `already used for order ${earlier.orderId}`);
      }
      return true;
    }
    const order = disputableOrder(sb, account.openId, input.orderId);
    if (reasonName(input.disputeReasonId) === undefined) {
      throw paramError(
        'disputeReasonId',
        `must be one of ${DISPUTE_REASONS.map((x) => x.disputeReasonId).join(', ')}`,
      );
    }
    if (input.expectType !== ExpectType.Refund && input.expectType !== ExpectType.Reissue) {
      throw paramError('expectType', 'must be 1 (refund) or 2 (reissue)');
    }
    if (input.refundType !== RefundType.Balance && input.refundType !== RefundType.Platform) {
      throw paramError('refundType', 'must be 1 (balance) or 2 (platform)');
    }
    const lines = checkRequestedLines(sb, order, input.productInfoList);
    const createdAt = sb.now();
    const dispute: SandboxDispute = {
      id: sb.nextId(''),
      openId: account.openId,
      businessDisputeId: input.businessDisputeId,
      orderId: order.svcOrderId,
      orderNumber: order.orderNumber,
      disputeReasonId: input.disputeReasonId,
      expectType: input.expectType,
      refundType: input.refundType,
      messageText: input.messageText,
      products: lines.map((l) => ({
        lineItemId: l.line.lineItemId,
        quantity: l.quantity,
        price: l.price,
      })),
      status: DisputeStatus.Processing,
      createdAt,
      resolvesAt: resolveTime(sb, createdAt),
    };
    sb.state.disputes[dispute.id] = dispute;
    order.disputeId = dispute.id;
    return true;
  });

  r.serve(cancelDispute, ({ orderId, disputeId }, account, sb) => {
    settleDueDisputes(sb, account.openId);
    const d = sb.state.disputes[disputeId];
    if (d?.openId !== account.openId) throw paramError('disputeId', 'dispute not found');
    if (findOwnOrder(sb, account.openId, orderId)?.svcOrderId !== d.orderId) {
      throw paramError('orderId', `dispute ${disputeId} is not of this order`);
    }
    if (d.status === DisputeStatus.Completed)
      throw paramError('disputeId', 'the dispute is already finished');
    d.status = DisputeStatus.Cancelled;
    return true;
  });

  r.serve(getDisputeList, (q, account, sb) => {
    settleDueDisputes(sb, account.openId);
    const pageNum = Math.max(1, q.pageNum ?? 1);
    const pageSize = Math.max(1, q.pageSize ?? 10);
    const matching = disputesOf(sb, account.openId)
      .filter(
        (d) =>
          q.orderId === undefined ||
          findOwnOrder(sb, account.openId, q.orderId)?.svcOrderId === d.orderId,
      )
      .filter((d) => listedYet(sb, d))
      .filter((d) => q.disputeId === undefined || d.id === String(q.disputeId))
      .filter((d) => q.orderNumber === undefined || d.orderNumber === q.orderNumber)
      .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
    return {
      pageNum,
      pageSize,
      total: matching.length,
      list: matching.slice((pageNum - 1) * pageSize, pageNum * pageSize).map((d) => ({
        ...summary(d),
        productList: d.products.map((p) => {
          const v = catalogueView(variantOf(sb, d, p.lineItemId));
          return {
            image: v.image,
            price: p.price,
            lineItemId: p.lineItemId,
            svcProductId: v.svcProductId,
            svcVariantId: v.svcVariantId,
            productName: v.productName,
            supplierName: SUPPLIER_NAME,
          };
        }),
      })),
    };
  });

  r.serve(getDisputeDetail, ({ disputeId }, account, sb) => {
    settleDueDisputes(sb, account.openId);
    const d = sb.state.disputes[disputeId];
    if (d?.openId !== account.openId) throw paramError('disputeId', 'dispute not found');
    const refunded = d.finallyDeal === FinallyDeal.Refund ? (d.money ?? 0) : 0;
    return {
      ...summary(d),
      refundAmount: d.money ?? null,
      refundDetails:
        d.status === DisputeStatus.Completed && d.finallyDeal === FinallyDeal.Refund
          ? [
              { type: 'PRODUCT_COST', typeName: 'Product cost', amount: refunded },
              { type: 'SHIPPING_COST', typeName: 'Shipping cost', amount: 0 },
            ]
          : [],
      productList: d.products.map((p) => {
        const v = catalogueView(variantOf(sb, d, p.lineItemId));
        return {
          image: v.image,
          price: p.price,
          productCode: v.sku,
          productId: v.svcProductId,
          productName: v.productName,
          standId: v.svcVariantId,
          supplierName: SUPPLIER_NAME,
        };
      }),
    };
  });

  registerDisputeControl(r);
}

function disputableProduct(line: OrderLine, quantity: number, canChoose: boolean) {
  const p = catalogueView(line.vid);
  return {
    lineItemId: line.lineItemId,
    svcProductId: p.svcProductId,
    svcVariantId: p.svcVariantId,
    canChoose,
    price: line.sellPrice,
    quantity,
    svcProductName: p.productName,
    svcImage: p.image,
    sku: p.sku,
    supplierName: SUPPLIER_NAME,
  };
}

/** The fields list items and the detail share. */
function summary(d: SandboxDispute) {
  return {
    id: d.id,
    status: d.status,
    shopId: DEFAULT_SHOP_ID,
    shopName: DEFAULT_SHOP_NAME,
    disputeReason: reasonName(d.disputeReasonId) ?? null,
    replacementAmount: d.expectType === ExpectType.Reissue ? requestedAmount(d) : null,
    resendOrderCode: d.resendOrderCode ?? null,
    money: d.money ?? null,
    finallyDeal: d.finallyDeal ?? null,
    createDate: d.createdAt,
  };
}

/** The catalogue variant of a disputed line. */
function variantOf(sb: Sandbox, d: SandboxDispute, lineItemId: string | undefined): string {
  return disputedOrder(sb, d)?.lines.find((l) => l.lineItemId === lineItemId)?.vid ?? '';
}

const Resolve = z.object({
  finallyDeal: z.union([
    z.literal(FinallyDeal.Refund),
    z.literal(FinallyDeal.Reissue),
    z.literal(FinallyDeal.Reject),
  ]),
});

/** A dispute the supplier's staff open on an order, outside the API (POST /__sandbox/disputes). */
const ConsoleDispute = z.strictObject({
  openId: z.string().min(1),
  orderId: z.string().min(1),
  disputeReasonId: z.union(DISPUTE_REASONS.map((x) => z.literal(x.disputeReasonId))),
});

/**
 * POST /__sandbox/disputes {openId, orderId, disputeReasonId}: a dispute opened in the supplier's
 * console (no businessDisputeId, no lines), even while the order has another open; it does not
 * stop the API from opening one. POST /__sandbox/disputes/:id/resolve {finallyDeal: 1 refund | 2 reissue | 3 reject}: ends a
 * Processing dispute now instead of at its resolution time.
 */
function registerDisputeControl(r: SandboxRouter): void {
  const sb = r.sandbox;
  control(r.app, 'POST', '/__sandbox/disputes', { body: ConsoleDispute, status: 201 }, (p) => {
    const order = findOwnOrder(sb, p.openId, p.orderId);
    if (!order) throw refuse(404, 'no such order of the account');
    const createdAt = sb.now();
    const d: SandboxDispute = {
      id: sb.nextId(''),
      openId: p.openId,
      byConsole: true,
      orderId: order.svcOrderId,
      orderNumber: order.orderNumber,
      disputeReasonId: p.disputeReasonId,
      expectType: ExpectType.Refund,
      refundType: RefundType.Balance,
      messageText: 'opened in the supplier console',
      products: [],
      status: DisputeStatus.Processing,
      createdAt,
      resolvesAt: resolveTime(sb, createdAt),
    };
    sb.state.disputes[d.id] = d;
    sb.changed();
    return view(d);
  });

  control(r.app, 'POST', '/__sandbox/disputes/:id/resolve', { body: Resolve }, (p, req) => {
    const d = sb.state.disputes[req.params.id ?? ''];
    if (!d) throw refuse(404, 'no such dispute');
    if (d.status !== DisputeStatus.Processing) {
      throw refuse(409, `dispute is ${d.status}`, { dispute: view(d) });
    }
    resolveDispute(sb, d, p.finallyDeal);
    return view(d);
  });
}

function view(d: SandboxDispute) {
  return {
    id: d.id,
    status: d.status,
    finallyDeal: d.finallyDeal ?? null,
    money: d.money ?? null,
    resendOrderCode: d.resendOrderCode ?? null,
  };
}
