/**
 * The create-order bodies (docs/supplier-api.md §7.1), apart from the rest of the order endpoints:
 * workflow code checks an amended order against them. Each workflow evaluates the modules it
 * imports again, so the schemas are built on first use (`z.lazy`), not when a workflow starts.
 */
import { z } from 'zod';
import { IossType, OrderFlow, PayType, ShopLogisticsType } from './constants.js';
import { amount, int, optInt, optText, text } from '../fields.js';

/** Product item of the create-order body; V2 and V3 differ only in two lengths. */
const productItem = (storeProductNameMax: number, variantOptionsMax: number) =>
  z
    .object({
      vid: optText(50),
      sku: optText(50),
      storeProductId: optText(64),
      storeProductImg: optText(500),
      storeProductName: optText(storeProductNameMax),
      storeSku: optText(60),
      variantOptions: optText(variantOptionsMax),
      quantity: int().min(1, { error: 'must be at least 1' }),
      unitPrice: amount().optional(),
      storeLineItemId: optText(125),
      podProperties: optText(500),
    })
    // Rule 1: the variant is found by vid, or by sku when vid is empty.
    .refine((p) => !!p.vid || !!p.sku, {
      path: ['vid'],
      error: 'is required when sku is empty (vid and sku must not both be empty)',
    });

const productList = <T extends z.ZodType>(item: T) =>
  z.array(item, { error: 'is required' }).min(1, { error: 'must hold at least 1 item' });

/** Fields shared by createOrderV2 and createOrderV3 (docs/supplier-api.md §7.1). */
const createOrderFields = () => ({
  orderNumber: text(50),
  shippingZip: optText(20),
  shippingCountryCode: text(20),
  shippingCountry: text(50),
  shippingProvince: text(50),
  shippingCity: text(50),
  shippingCounty: optText(50),
  shippingPhone: optText(20),
  shippingCustomerName: text(50),
  shippingAddress: text(500),
  shippingAddress2: optText(500),
  houseNumber: optText(20),
  email: optText(50),
  taxId: optText(20),
  remark: optText(500),
  consigneeID: optText(20),
  /** 0 normal (default), 1 sandbox: payment simulated, nothing charged or shipped. */
  isSandbox: z.union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' }).optional(),
  shopAmount: amount().optional(),
  logisticName: text(50),
  fromCountryCode: text(20),
  platform: optText(20),
  /** 1 platform logistics from the caller's storageId, 2 merchant logistics (default), 3 platform logistics, storage chosen by the service. */
  shopLogisticsType: z
    .union(
      [
        z.literal(ShopLogisticsType.PlatformFromStorage),
        z.literal(ShopLogisticsType.Supplier),
        z.literal(ShopLogisticsType.PlatformSupplierStorage),
      ],
      { error: 'must be 1, 2 or 3' },
    )
    .optional(),
  storageId: optText(40),
  iossType: z
    .union([z.literal(IossType.None), z.literal(IossType.Own), z.literal(IossType.Service)], {
      error: 'must be 1, 2 or 3',
    })
    .optional(),
  iossNumber: optText(10),
  storeName: optText(50),
  /** Seconds; must not be later than now (checked by the supplier). */
  storeOrderTime: optInt(),
  /** 1 catalogue flow (default), 2 store flow (V3 only). */
  orderFlow: z
    .union([z.literal(OrderFlow.Catalogue), z.literal(OrderFlow.Store)], {
      error: 'must be 1 or 2',
    })
    .optional(),
});

type CreateOrderShape = {
  shopLogisticsType?: ShopLogisticsType | undefined;
  storageId?: string | undefined;
};

/** shopLogisticsType 1 takes its storage from the caller. */
const storageGiven = (o: CreateOrderShape) =>
  o.shopLogisticsType !== ShopLogisticsType.PlatformFromStorage || !!o.storageId;
const storageRule = { path: ['storageId'], error: 'is required when shopLogisticsType is 1' };

export const CreateOrderV2Request = z.lazy(() =>
  z
    .object({
      ...createOrderFields(),
      /** 1 or omitted: page payment (deprecated svcPayUrl); 2: balance payment right away; 3: create only. */
      payType: z
        .union(
          [z.literal(PayType.PayPage), z.literal(PayType.Balance), z.literal(PayType.CreateOnly)],
          { error: 'must be 1, 2 or 3' },
        )
        .optional(),
      products: productList(productItem(200, 100)),
    })
    .refine(storageGiven, storageRule)
    .refine((o) => o.orderFlow !== OrderFlow.Store, {
      path: ['orderFlow'],
      error: 'store flow (2) needs createOrderV3',
    }),
);

export const CreateOrderV3Request = z.lazy(() =>
  z
    .object({
      ...createOrderFields(),
      products: productList(productItem(500, 200)),
    })
    .refine(storageGiven, storageRule)
    // Rule 2: under the store flow every item names its store product and variant.
    .superRefine((o, ctx) => {
      if (o.orderFlow !== OrderFlow.Store) return;
      o.products.forEach((p, i) => {
        for (const field of ['vid', 'storeProductId', 'storeProductImg'] as const) {
          if (!p[field]) {
            ctx.addIssue({
              code: 'custom',
              path: ['products', i, field],
              message: 'is required under the store flow (orderFlow 2)',
            });
          }
        }
      });
    }),
);

/** The order an upstream system sends: the createOrderV3 body. */
export type CreateOrderRequest = z.input<typeof CreateOrderV3Request>;
export type CreateOrderV2Request = z.input<typeof CreateOrderV2Request>;
export type CreateOrderProduct = CreateOrderRequest['products'][number];
