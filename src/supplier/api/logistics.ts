/** Logistics: freight estimates and tracking (docs/supplier-api.md §8). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import {
  amount,
  int,
  list,
  nonEmptyList,
  optBool,
  optId,
  optList,
  optMoney,
  optNum,
  optStr,
  optText,
  record,
  text,
} from '../fields.js';

// ---- request helpers ----

const quantity = () => int().min(1, { error: 'must be at least 1' });

/** A product line of an estimate; vid has no documented length, 200 is assumed. */
const FreightProduct = z.object({ vid: text(200), quantity: quantity() });

// ---- response helpers ----

/** A text field that some integrations receive as a number. */
const optLabel = optId;

// ---- freightCalculate ----

export const FreightCalculateRequest = z.object({
  startCountryCode: text(200),
  endCountryCode: text(200),
  zip: optText(200),
  taxId: optText(200),
  houseNumber: optText(200),
  iossNumber: optText(200),
  products: nonEmptyList(FreightProduct),
});

/** Freight option (simple estimate), docs/supplier-api.md §8. */
export const FreightOption = record({
  logisticName: optStr,
  /** USD */
  logisticPrice: optMoney,
  logisticPriceCn: optMoney,
  /** A range such as "12-20" (days). */
  logisticAging: optLabel,
  taxesFee: optMoney,
  clearanceOperationFee: optMoney,
  /** USD */
  totalPostageFee: optMoney,
});
export type FreightOption = z.infer<typeof FreightOption>;

export const freightCalculate = endpoint({
  name: 'freightCalculate',
  method: 'POST',
  path: 'logistic/freightCalculate',
  request: FreightCalculateRequest,
  response: optList(FreightOption),
  mutates: false,
});

// ---- freightCalculateTip ----

const FreightTrialSku = z.object({
  productCode: optText(200),
  hscode: optText(200),
  sku: optText(200),
  vid: optText(200),
  parentVid: optText(200),
  productPropList: list(z.string()).optional(),
  productTypeList: list(z.string()).optional(),
  skuQuantity: int().optional(),
  /** g */
  skuWeight: amount().optional(),
  /** cm3 */
  skuVolume: amount().optional(),
  combinationType: int().optional(),
  unsalable: int().optional(),
  tailCostQuantity: int().optional(),
  privateDeductionQuantity: int().optional(),
});

/** One estimate request; string fields without a stated length are bounded at 200. */
export const FreightTipRequest = z.object({
  srcAreaCode: text(200),
  destAreaCode: text(200),
  customerCode: optText(200),
  zip: optText(200),
  iossNumber: optText(200),
  recipientAddress: optText(200),
  recipientName: optText(200),
  dutyNo: optText(200),
  uid: optText(200),
  recipientId: optText(200),
  recipientAddress1: optText(200),
  recipientAddress2: optText(200),
  optionName: optText(200),
  /** 0 dropshipping order, 1 direct order, 2 ODM custom. */
  orderType: z.enum(['0', '1', '2'], { error: 'must be 0, 1 or 2' }).optional(),
  houseNumber: optText(200),
  city: optText(50),
  town: optText(200),
  phone: optText(50),
  email: optText(200),
  province: optText(200),
  storageIdList: list(text(200)).optional(),
  skuList: nonEmptyList(text(200)),
  /** Weight including packaging, g. */
  wrapWeight: int(),
  /** cm3 */
  volume: amount(),
  /** g */
  weight: int(),
  volumeWeight: amount().optional(),
  station: optText(2),
  platforms: list(z.string()).optional(),
  amount: amount().optional(),
  productTypes: list(z.string()).optional(),
  /** Logistics attributes: the product detail's productProEnSet. */
  productProp: list(z.string()),
  totalGoodsAmount: amount().optional(),
  length: amount().optional(),
  width: amount().optional(),
  height: amount().optional(),
  freightTrialSkuList: list(FreightTrialSku),
});
export type FreightTipRequest = z.input<typeof FreightTipRequest>;

/**
 * A rule the destination applies to the order's address; interceptType '0' is a strong
 * interception (the order stops), '1' a hint.
 */
export const RuleTip = record({
  /** phone, dutyNo, email, zip, town, houseNumber, iossNumber, recipientId, province, recipientName, recipientAddress, city */
  type: optStr,
  /** A regular expression the field must match. */
  expression: optStr,
  interceptType: optLabel,
  min: optNum,
  max: optNum,
  msgCode: optLabel,
  msgEn: optStr,
});
export type RuleTip = z.infer<typeof RuleTip>;

const Area = record({
  cnName: optStr,
  enName: optStr,
  countryId: optId,
  parentId: optId,
  postCode: optStr,
  shortCode: optStr,
  id: optId,
});

const NamedRef = record({ cnName: optStr, enName: optStr, id: optId });

/** Freight option (detailed estimate), docs/supplier-api.md §8. */
export const DetailedFreightOption = record({
  arrivalTime: optLabel,
  /** Cost after discount: the value to display. */
  discountFee: optMoney,
  discountFeeCNY: optMoney,
  /** Cost before discount. */
  postage: optMoney,
  postageCNY: optMoney,
  volumeWeight: optNum,
  channelId: optId,
  optionId: optId,
  error: optStr,
  errorEn: optStr,
  priceIncreases: optLabel,
  reSort: optLabel,
  remoteFee: optMoney,
  remoteFeeCNY: optMoney,
  tip: optStr,
  uid: optStr,
  orderId: optId,
  unWeightChargeTarget: z.unknown().optional(),
  floatMaxPrice: optMoney,
  floatMinPrice: optMoney,
  logisticsParamRespDTO: z.unknown().optional(),
  message: optStr,
  wrapPostage: optMoney,
  wrapPostageCNY: optMoney,
  wrapWeight: optNum,
  stopWords: optList(z.string()),
  dump: optBool,
  channel: NamedRef.nullish(),
  /** The logistics option; `enName` is the logisticName to order with. */
  option: NamedRef.extend({ arrivalTime: optLabel }).nullish(),
  svcRespDTO: record({
    postage: optMoney,
    postageCNY: optMoney,
    remoteFee: optMoney,
    remoteFeeCNY: optMoney,
  }).nullish(),
  /** US tax, not in postage. */
  taxesFee: optMoney,
  clearanceOperationFee: optMoney,
  /** EU tariff, not in postage. */
  tariff: optMoney,
  /** postage + taxesFee + clearanceOperationFee + tariff */
  totalPostageFee: optMoney,
  /** 0 time priority, 1 price priority, 2 composite. */
  recommendLogisticsTypeList: optList(z.coerce.number()),
  timePrioritySort: optNum,
  pricePrioritySort: optNum,
  compositeRecommendSort: optNum,
  zonePrice: optList(
    record({
      storageId: optId,
      discountFee: optMoney,
      lastDiscountFee: optMoney,
      wrapPostage: optMoney,
      lastWrapPostage: optMoney,
    }),
  ),
  ruleTipTypes: optList(z.string()),
  ruleTips: optList(RuleTip),
  allRuleTips: optList(RuleTip),
  destArea: Area.nullish(),
  srcArea: Area.nullish(),
});
export type DetailedFreightOption = z.infer<typeof DetailedFreightOption>;

export const freightCalculateTip = endpoint({
  name: 'freightCalculateTip',
  method: 'POST',
  path: 'logistic/freightCalculateTip',
  request: z.object({ reqDTOS: nonEmptyList(FreightTipRequest) }),
  response: optList(DetailedFreightOption),
  mutates: false,
});

// ---- partnerFreightCalculate ----

/**
 * Lengths the vendor leaves out (country, province, city, zip, address, name, phone, email) are
 * those of the same fields of createOrderV2.
 */
export const PartnerFreightRequest = z.object({
  orderNumber: text(40),
  shippingCountryCode: text(20),
  shippingCountry: text(50),
  shippingProvince: text(50),
  shippingCity: text(50),
  shippingZip: text(20),
  /** Warehouse country. */
  fromCountryCode: text(20),
  shippingAddress: optText(500),
  shippingCustomerName: optText(50),
  shippingPhone: optText(20),
  logisticName: optText(200),
  houseNumber: optText(20),
  remark: optText(500),
  email: optText(50),
  consigneeID: optText(200),
  /** 1 no IOSS, 2 own IOSS, 3 service IOSS. */
  iossType: int()
    .refine((v) => v >= 1 && v <= 3, { error: 'must be 1, 2 or 3' })
    .optional(),
  iossNumber: optText(20),
  products: nonEmptyList(FreightProduct),
});

export const PartnerFreightOption = record({
  /** USD */
  postageAmount: optMoney,
  /** The channel. */
  logisticsModel: optStr,
  logisticsName: optStr,
  arrivalTime: optLabel,
  isSupportIoss: optBool,
  iossList: optList(
    record({
      iossNumber: optStr,
      iossType: optNum,
      serviceAmount: optMoney,
      taxAmount: optMoney,
    }),
  ),
});
export type PartnerFreightOption = z.infer<typeof PartnerFreightOption>;

export const partnerFreightCalculate = endpoint({
  name: 'partnerFreightCalculate',
  method: 'POST',
  path: 'logistic/partnerFreightCalculate',
  request: PartnerFreightRequest,
  response: optList(PartnerFreightOption),
  mutates: false,
});

// ---- getSupplierLogisticsTemplate ----

export const SupplierLogisticsTemplate = record({
  skuList: optList(z.string()),
  logisticsInfoList: optList(
    record({
      /** Template id. */
      id: optId,
      logisticsName: optStr,
      /** USD */
      postage: optMoney,
      startCountryCode: optStr,
      destCountryCode: optStr,
    }),
  ),
});
export type SupplierLogisticsTemplate = z.infer<typeof SupplierLogisticsTemplate>;

export const getSupplierLogisticsTemplate = endpoint({
  name: 'getSupplierLogisticsTemplate',
  method: 'POST',
  path: 'logistic/getSupplierLogisticsTemplate',
  /** Product SKUs, not variant SKUs. */
  request: z.object({ skuList: nonEmptyList(text(200)) }),
  response: optList(SupplierLogisticsTemplate),
  mutates: false,
});

// ---- trackInfo ----

/**
 * `trackingStatus` as a number: of a logistics webhook message and of its events (the vendor:
 * 0 none, 1 warehouse outbound … 12 delivered, 13 exception, 14 returned).
 */
export const TrackingStatus = {
  None: 0,
  WarehouseOutbound: 1,
  Delivered: 12,
  Exception: 13,
  Returned: 14,
} as const;
export type TrackingStatus = (typeof TrackingStatus)[keyof typeof TrackingStatus];

export const TrackingRecord = record({
  trackingNumber: optStr,
  logisticName: optStr,
  trackingFrom: optStr,
  trackingTo: optStr,
  deliveryDay: optLabel,
  deliveryTime: optStr,
  trackingStatus: optStr,
  lastMileCarrier: optStr,
  lastTrackNumber: optStr,
});
export type TrackingRecord = z.infer<typeof TrackingRecord>;

/** Unknown tracking numbers are simply absent from the result: match records by trackingNumber. */
export const trackInfo = endpoint({
  name: 'trackInfo',
  method: 'GET',
  path: 'logistic/trackInfo',
  // Sent as the name repeated, one per number; at most 100 per call (docs/supplier-api.md §13).
  request: z.object({ trackNumber: nonEmptyList(text(200), 100) }),
  response: optList(TrackingRecord),
});

export const logisticsEndpoints = {
  freightCalculate,
  freightCalculateTip,
  partnerFreightCalculate,
  getSupplierLogisticsTemplate,
  trackInfo,
} as const;
