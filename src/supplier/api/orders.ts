/**
 * Orders (docs/supplier-api.md §7): create (catalogue or store flow), cart, confirmation, parent
 * order, queries, logistics changes, the sandbox tracking number, confirm and delete.
 */
import { z } from 'zod';
import { LISTED_ORDER_STATUSES, OTHER_ORDER_STATUSES } from './constants.js';
import { endpoint } from '../endpoint.js';
import { CreateOrderV2Request, CreateOrderV3Request } from './createOrderRequest.js';
import {
  id,
  list,
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

// ---- create order ---------------------------------------------------------------------------

export {
  CreateOrderV2Request,
  CreateOrderV3Request,
  type CreateOrderProduct,
  type CreateOrderRequest,
} from './createOrderRequest.js';

/** An interception reason: {code, message} (docs/supplier-api.md §5.3). */
export const InterceptReason = record({ code: optNum, message: optStr });
export type InterceptReason = z.infer<typeof InterceptReason>;

const SubOrderProduct = record({ lineItemId: optId, variantId: optStr, quantity: optNum });

export const CreateOrderResult = record({
  /** Missing for a store-flow order whose products are not connected yet (read it from the ORDER_CONNNECTED webhook). */
  orderId: optId,
  orderNumber: optStr,
  shipmentOrderId: optId,
  iossAmount: optMoney,
  iossTaxHandlingFee: optMoney,
  postageAmount: optMoney,
  productAmount: optMoney,
  productOriginalAmount: optMoney,
  productDiscountAmount: optMoney,
  postageDiscountAmount: optMoney,
  postageOriginalAmount: optMoney,
  totalDiscountAmount: optMoney,
  actualPayment: optMoney,
  orderOriginalAmount: optMoney,
  svcPayUrl: optStr,
  orderAmount: optMoney,
  logisticsMiss: optBool,
  orderStatus: optStr,
  productInfoList: optList(
    record({
      storeLineItemId: optStr,
      lineItemId: optId,
      variantId: optStr,
      quantity: optNum,
      isGroup: optBool,
      subOrderProducts: optList(SubOrderProduct),
    }),
  ),
  interceptOrderReasons: optList(InterceptReason),
});
export type CreateOrderResult = z.infer<typeof CreateOrderResult>;

/**
 * A duplicate orderNumber answers 1603003 "Order exist, please do not duplicate create"
 * (uncertain: one documentation page; docs/supplier-api.md §13): the order exists, look it up.
 */
export const createOrderV2 = endpoint({
  name: 'createOrderV2',
  method: 'POST',
  path: 'shopping/order/createOrderV2',
  request: CreateOrderV2Request,
  response: CreateOrderResult,
});

export const createOrderV3 = endpoint({
  name: 'createOrderV3',
  method: 'POST',
  path: 'shopping/order/createOrderV3',
  request: CreateOrderV3Request,
  response: CreateOrderResult,
});

// ---- cart, confirmation, parent order -------------------------------------------------------

const svcOrderIdList = list(text(200)).pipe(
  z.array(z.string()).min(1, { error: 'must hold at least 1 item' }),
);

/**
 * An intercepted order in interceptOrders. The vendor calls addCartConfirm's entries ids and does
 * not show addCart's; the sandbox sends {orderId, logisticsMiss, interceptOrderReasons} objects in
 * addCart (assumption, uncertain), so both forms are accepted. Use `interceptedOrderId`.
 */
export const InterceptedOrder = z.union([
  id,
  record({
    orderId: optId,
    svcOrderId: optId,
    logisticsMiss: optBool,
    interceptOrderReasons: optList(InterceptReason),
  }),
]);
export type InterceptedOrder = z.infer<typeof InterceptedOrder>;

/** The svc order id of an interceptOrders entry, whichever form it came in. */
export function interceptedOrderId(entry: InterceptedOrder): string | undefined {
  return typeof entry === 'string' ? entry : (entry.orderId ?? entry.svcOrderId ?? undefined);
}

export const AddCartResult = record({
  successCount: optNum,
  addSuccessOrders: optList(id),
  unInterceptAddressCount: optNum,
  interceptOrders: optList(InterceptedOrder),
});
export type AddCartResult = z.infer<typeof AddCartResult>;

export const addCart = endpoint({
  name: 'addCart',
  method: 'POST',
  path: 'shopping/order/addCart',
  request: z.object({ svcOrderIdList }),
  response: AddCartResult,
});

export const AddCartConfirmResult = record({
  successCount: optNum,
  submitSuccess: optBool,
  /** The shipment (parent) order id: saveGenerateParentOrder and payBalanceV2 take it. */
  shipmentsId: optId,
  result: z.unknown().optional(),
  interceptOrders: optList(InterceptedOrder),
});
export type AddCartConfirmResult = z.infer<typeof AddCartConfirmResult>;

export const addCartConfirm = endpoint({
  name: 'addCartConfirm',
  method: 'POST',
  path: 'shopping/order/addCartConfirm',
  request: z.object({ svcOrderIdList }),
  response: AddCartConfirmResult,
});

export const PaymentInformation = record({
  actualPayment: optMoney,
  balanceDeduction: optMoney,
  billAmount: optMoney,
  canDeduct: optBool,
  commodityDiscount: optMoney,
  commodityTotalAmount: optMoney,
  couponAmount: optMoney,
  freight: optMoney,
  iossAmount: optMoney,
  iossNumber: optStr,
  iossTaxHandlingFee: optMoney,
  iossTaxes: optMoney,
  iossType: z.unknown().optional(),
  orderOriginalAmount: optMoney,
  orderProductAmount: optMoney,
  payableAmount: optMoney,
  postageDiscount: optMoney,
  serviceFee: optMoney,
});

export const ParentOrderResult = record({
  orderMoney: optMoney,
  payExpireTime: optStr,
  payId: optId,
  result: z.unknown().optional(),
  submitSuccess: optBool,
  // Element shapes of these lists are not shown: ids in the sandbox.
  unMatchOrderCodes: optList(z.unknown()),
  successOrders: optList(z.unknown()),
  unMatchProductCodes: optList(z.unknown()),
  paymentInformation: PaymentInformation.nullish(),
  interceptOrders: optList(InterceptedOrder),
});
export type ParentOrderResult = z.infer<typeof ParentOrderResult>;

export const saveGenerateParentOrder = endpoint({
  name: 'saveGenerateParentOrder',
  method: 'POST',
  path: 'shopping/order/saveGenerateParentOrder',
  request: z.object({ shipmentOrderId: text(200) }),
  response: ParentOrderResult,
});

// ---- queries ----------------------------------------------------------------------------------

/** listOrders' `status` filter values: the listed statuses, then OTHER for the rest (CLOSED). */
export const ORDER_STATUSES = [...LISTED_ORDER_STATUSES, OTHER_ORDER_STATUSES] as const;

const OrderProduct = record({
  vid: optStr,
  quantity: optNum,
  sellPrice: optMoney,
  storeLineItemId: optStr,
  lineItemId: optId,
  orderNumber: optStr,
  productionOrderStatus: optNum,
  abnormalType: optList(z.coerce.number()),
  podPropertiesInfo: z.unknown().optional(),
});

/**
 * The order object of getOrderDetail, getOrderDetailBatch and list (docs/supplier-api.md §6.4).
 * How getOrderDetail answers an unknown id is not shown (the sandbox: 1600100); use the batch
 * query, which skips unknown ids, to look an order up.
 */
export const SupplierOrder = record({
  orderId: optId,
  orderNum: optStr,
  platformOrderId: optId,
  svcOrderId: optId,
  /** Match batch results by this. Absent in the list shape. */
  svcOrderCode: optStr,
  fromCountryCode: optStr,
  shippingCountryCode: optStr,
  shippingProvince: optStr,
  shippingCity: optStr,
  shippingAddress: optStr,
  shippingCustomerName: optStr,
  shippingPhone: optStr,
  remark: optStr,
  logisticName: optStr,
  trackNumber: optStr,
  trackingProvider: optStr,
  trackingUrl: optStr,
  disputeId: optId,
  disputeOpenedId: optId,
  orderWeight: optNum,
  orderAmount: optMoney,
  productAmount: optMoney,
  postageAmount: optMoney,
  orderStatus: optStr,
  /** PENDING or PROCESSING while orderStatus is UNSHIPPED; absent in the list shape. */
  subStatus: optStr,
  createDate: optStr,
  paymentDate: optStr,
  storeCreateDate: optStr,
  outWarehouseTime: optStr,
  isComplete: optNum,
  isSandbox: optNum,
  storageId: optStr,
  storageName: optStr,
  privateOutboundOrder: optBool,
  shopId: optId,
  shopName: optStr,
  logisticsTimeliness: z.unknown().optional(),
  productList: optList(OrderProduct),
});
export type SupplierOrder = z.infer<typeof SupplierOrder>;

export const listOrders = endpoint({
  name: 'listOrders',
  method: 'GET',
  path: 'shopping/order/list',
  request: z.object({
    pageNum: optInt(),
    pageSize: optInt(),
    orderIds: list(text(200)).optional(),
    shipmentOrderId: optText(200),
    /** The vendor states CANCELLED as the default when omitted: always send it. */
    status: z
      .enum(ORDER_STATUSES, { error: `must be one of ${ORDER_STATUSES.join(', ')}` })
      .optional(),
  }),
  response: record({
    pageNum: optNum,
    pageSize: optNum,
    total: optNum,
    list: optList(SupplierOrder),
  }),
});

export const getOrderDetail = endpoint({
  name: 'getOrderDetail',
  method: 'GET',
  path: 'shopping/order/getOrderDetail',
  request: z.object({ orderId: text(200), features: list(text(200)).optional() }),
  response: SupplierOrder,
});

const orderIds100 = z
  .array(text(200), { error: 'is required' })
  .min(1, { error: 'must hold at least 1 item' })
  .max(100, { error: 'must hold at most 100 items' });

export const getOrderDetailBatch = endpoint({
  name: 'getOrderDetailBatch',
  method: 'POST',
  path: 'shopping/order/getOrderDetailBatch',
  request: z.object({ orderIds: orderIds100 }),
  response: optList(SupplierOrder),
  rate: 'batch',
  mutates: false,
});

export const ProofOfDelivery = record({ orderId: id, proofOfDeliveryList: optList(z.string()) });
export type ProofOfDelivery = z.infer<typeof ProofOfDelivery>;

export const getProofOfDelivery = endpoint({
  name: 'getProofOfDelivery',
  method: 'POST',
  path: 'shopping/order/getProofOfDelivery',
  request: z.object({ orderIds: orderIds100 }),
  response: optList(ProofOfDelivery),
  rate: 'batch',
  mutates: false,
});

// ---- logistics of one order -------------------------------------------------------------------

/** One optional logistics option (docs/supplier-api.md §7.6). */
export const LogisticsOption = record({
  id,
  orderCode: optStr,
  logisticsName: optStr,
  logisticsNameAlias: optStr,
  postage: optMoney,
  postageDiscountPrice: optMoney,
  basePostage: optMoney,
  remoteAmount: optMoney,
  packPrice: optMoney,
  serviceAmount: optMoney,
  startCountry: optStr,
  arrivalTime: optStr,
  channelId: optId,
  isChecked: optBool,
  checkIossSuccess: optBool,
  taxesFlag: optNum,
  taxesType: optNum,
  availableTrackingInfo: optBool,
  remark: optStr,
  hasStock: optBool,
});
export type LogisticsOption = z.infer<typeof LogisticsOption>;

/**
 * Path and parameter as integrations observe them (no official parameter table; the vendor says
 * only that the order id is carried, calling it svcOrderId): docs/supplier-api.md §13.
 */
export const getOrderLogisticsInfo = endpoint({
  name: 'getOrderLogisticsInfo',
  method: 'GET',
  path: 'shopping/order/getOrderLogisticsInfo',
  request: z.object({ orderCode: text(200) }),
  response: optList(LogisticsOption),
});

/** Item shape of the abnormal-reason lists is not shown; the sandbox sends {code, message}. */
const AbnormalReason = z.union([InterceptReason, z.string()]);

export const UpdateLogisticsResult = record({
  /** Not shown beyond areaEnName and orderQuantity. */
  orderCompletedOutputVo: record({ areaEnName: optStr, orderQuantity: optNum }).nullish(),
  shoppingCartOrderVo: z.unknown().optional(),
  /** logisticsCanUser false means the line is unavailable. */
  abnormalReason: z.unknown().optional(),
  /** Non-empty: hard interception, the change did not take effect. */
  interceptAbnormalReasons: optList(AbnormalReason),
  unInterceptAbnormalReasons: optList(AbnormalReason),
});
export type UpdateLogisticsResult = z.infer<typeof UpdateLogisticsResult>;

export const updateLogistics = endpoint({
  name: 'updateLogistics',
  method: 'POST',
  path: 'shopping/order/updateLogistics',
  request: z.object({
    /** A long; dropflow holds ids as strings, so digits in a string are accepted. */
    id: z.union([z.number().int(), z.string().regex(/^\d{1,19}$/)], {
      error: 'is required (an option id from getOrderLogisticsInfo)',
    }),
    orderCode: text(200),
    logisticsName: optText(200),
    /** 0 incomplete order, 1 complete order (default), 2 cart. */
    from: z
      .union([z.literal(0), z.literal(1), z.literal(2)], { error: 'must be 0, 1 or 2' })
      .optional(),
  }),
  response: UpdateLogisticsResult,
});

export const updateTrackNumber = endpoint({
  name: 'updateTrackNumber',
  method: 'POST',
  path: 'shopping/sandbox/updateTrackNumber',
  request: z.object({ orderId: text(200), trackNumber: text(64) }),
  response: z.unknown(),
});

// ---- maintenance (docs/supplier-api.md §7.8) ----------------------------------------------

export const confirmOrder = endpoint({
  name: 'confirmOrder',
  method: 'PATCH',
  path: 'shopping/order/confirmOrder',
  request: z.object({ orderId: text(200) }),
  response: optId,
});

/** Not possible after confirmation. */
export const deleteOrder = endpoint({
  name: 'deleteOrder',
  method: 'DELETE',
  path: 'shopping/order/deleteOrder',
  request: z.object({ orderId: text(200) }),
  response: optId,
});

export const ordersEndpoints = {
  createOrderV2,
  createOrderV3,
  addCart,
  addCartConfirm,
  saveGenerateParentOrder,
  listOrders,
  getOrderDetail,
  getOrderDetailBatch,
  getProofOfDelivery,
  getOrderLogisticsInfo,
  updateLogistics,
  updateTrackNumber,
  confirmOrder,
  deleteOrder,
} as const;
