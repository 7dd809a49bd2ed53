/**
 * Disputes (docs/supplier-api.md §9): list disputable products, confirm to obtain reasons and
 * amounts, then create; cancel, list and read. Only orders created through the API can be disputed.
 */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import {
  amount,
  id,
  int,
  list,
  nonEmptyList,
  money,
  optBool,
  optId,
  optInt,
  optList,
  optMoney,
  optNum,
  optStr,
  optText,
  record,
  text,
} from '../fields.js';

// ---- shared shapes ----

/** One disputable order line (disputeProducts; also echoed by disputeConfirmInfo). */
export const DisputableProduct = record({
  lineItemId: optId,
  svcProductId: optId,
  svcVariantId: optId,
  /** false may mean an unfinished dispute exists on the order. */
  canChoose: optBool,
  /** USD per unit. */
  price: optMoney,
  /** Quantity that can still be disputed. */
  quantity: optNum,
  svcProductName: optStr,
  svcImage: optStr,
  sku: optStr,
  supplierName: optStr,
});
export type DisputableProduct = z.infer<typeof DisputableProduct>;

/** A line the caller disputes: unit price in USD and quantity. */
const DisputedLine = z.object({
  lineItemId: optText(100),
  quantity: int().min(1, { error: 'must be at least 1' }),
  price: amount(),
});

// The disputes' enum-like numbers live with the other constants (workflow code reads them without
// this module's schemas).
export { DisputeStatus, ExpectType, FinallyDeal, RefundType } from './constants.js';

/** Dispute list item (getDisputeList, docs/supplier-api.md §9). */
export const DisputeListItem = record({
  id,
  /** Not documented for the list; matched on when a supplier gives it back. */
  businessDisputeId: optStr,
  status: optStr,
  shopId: optId,
  shopName: optStr,
  disputeReason: optStr,
  replacementAmount: optMoney,
  resendOrderCode: optStr,
  /** Final refund amount. */
  money: optMoney,
  finallyDeal: optNum,
  // The list's createDate format is not shown; the detail's is epoch ms. Either is accepted.
  createDate: z.union([z.number(), z.string()]).nullish(),
  productList: optList(
    record({
      image: optStr,
      price: optMoney,
      lineItemId: optId,
      svcProductId: optId,
      svcVariantId: optId,
      productName: optStr,
      supplierName: optStr,
    }),
  ),
});
export type DisputeListItem = z.infer<typeof DisputeListItem>;

/** Dispute detail (getDisputeDetail). */
export const DisputeDetail = record({
  id,
  shopId: optId,
  shopName: optStr,
  status: optStr,
  disputeReason: optStr,
  replacementAmount: optMoney,
  resendOrderCode: optStr,
  money: optMoney,
  /** Equal to money. */
  refundAmount: optMoney,
  finallyDeal: optNum,
  /** Epoch ms. */
  createDate: z.union([z.number(), z.string()]).nullish(),
  refundDetails: optList(
    record({
      /** PRODUCT_COST, SHIPPING_COST, IOSS_TAX or IOSS_HANDLING_FEE. */
      type: optStr,
      typeName: optStr,
      amount: optMoney,
    }),
  ),
  productList: optList(
    record({
      image: optStr,
      price: optMoney,
      productCode: optStr,
      productId: optId,
      productName: optStr,
      /** The variant id. */
      standId: optId,
      supplierName: optStr,
    }),
  ),
});
export type DisputeDetail = z.infer<typeof DisputeDetail>;

// ---- endpoints ----

export const disputeProducts = endpoint({
  name: 'disputeProducts',
  method: 'GET',
  path: 'disputes/disputeProducts',
  request: z.object({ orderId: text(100) }),
  response: record({
    orderId: optId,
    orderNumber: optStr,
    productInfoList: optList(DisputableProduct),
  }),
});

export const disputeConfirmInfo = endpoint({
  name: 'disputeConfirmInfo',
  method: 'POST',
  path: 'disputes/disputeConfirmInfo',
  request: z.object({
    orderId: text(100),
    productInfoList: nonEmptyList(DisputedLine),
  }),
  response: record({
    orderId: optId,
    orderNumber: optStr,
    maxProductPrice: optMoney,
    maxPostage: optMoney,
    maxIossTaxAmount: optMoney,
    maxIossHandTaxAmount: optMoney,
    /** Refundable amount, USD. */
    maxAmount: optMoney,
    /** "1" refund, "2" reissue. */
    expectResultOptionList: optList(z.union([z.string(), z.number()]).transform(String)),
    productInfoList: optList(DisputableProduct),
    disputeReasonList: optList(record({ disputeReasonId: money, reasonName: optStr })),
  }),
  // A read: asking again changes nothing.
  mutates: false,
});

export const createDispute = endpoint({
  name: 'createDispute',
  method: 'POST',
  path: 'disputes/create',
  request: z.object({
    /** The caller's id of this dispute; the same id again never opens a second one. */
    businessDisputeId: text(100),
    orderId: text(100),
    disputeReasonId: int(),
    expectType: int(),
    refundType: int(),
    messageText: text(500),
    imageUrl: list(text(200)).optional(),
    videoUrl: list(text(200)).optional(),
    productInfoList: nonEmptyList(DisputedLine),
  }),
  response: z.unknown(),
});

export const cancelDispute = endpoint({
  name: 'cancelDispute',
  method: 'POST',
  path: 'disputes/cancel',
  request: z.object({ orderId: text(100), disputeId: text(100) }),
  response: z.unknown(),
});

export const getDisputeList = endpoint({
  name: 'getDisputeList',
  method: 'GET',
  path: 'disputes/getDisputeList',
  request: z.object({
    orderId: optText(100),
    /** Documented as int; dispute ids are long integers. */
    disputeId: optInt(),
    /** The store order number. */
    orderNumber: optText(100),
    pageNum: optInt(),
    pageSize: optInt(),
  }),
  response: record({
    pageNum: optNum,
    pageSize: optNum,
    total: optNum,
    list: optList(DisputeListItem),
  }),
});

export const getDisputeDetail = endpoint({
  name: 'getDisputeDetail',
  method: 'GET',
  path: 'disputes/getDisputeDetail',
  request: z.object({ disputeId: text(100) }),
  response: DisputeDetail,
});

export const disputesEndpoints = {
  disputeProducts,
  disputeConfirmInfo,
  createDispute,
  cancelDispute,
  getDisputeList,
  getDisputeDetail,
} as const;
