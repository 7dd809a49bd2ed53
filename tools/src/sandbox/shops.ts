/**
 * The shops of a sandbox account: every account has exactly one API-type shop, enabled. Store
 * products (state.storeProducts) and connections (state.connections) belong to it.
 */
import { ShopStatus } from 'dropflow/supplier';
import type { SandboxAccount, StoreProduct } from './state.js';

export const DEFAULT_SHOP_ID = 'SHOP-API-1';
/** createOrderV3's storeName must equal this (or be omitted). */
export const DEFAULT_SHOP_NAME = 'API Store';
export const DEFAULT_SHOP_TYPE = 'Api';

/** Key of a store product in state.storeProducts: every account has its own shop of that id. */
export function storeProductKey(openId: string, shopId: string, productId: string): string {
  return `${openId}|${shopId}|${productId}`;
}

/** The account's store product, if that account saved (or ordered) it. */
export function findStoreProduct(
  products: Record<string, StoreProduct>,
  openId: string,
  shopId: string,
  productId: string,
): StoreProduct | undefined {
  return products[storeProductKey(openId, shopId, productId)];
}

export interface SandboxShop {
  id: string;
  name: string;
  type: string;
  status: ShopStatus;
  createDate: string;
  updateDate: string;
  aliasName: string;
  syncInventory: number;
  syncInventoryRate: number;
  isCb: number;
  trackUrlTemplate: string;
  emailNotification: number;
  email: string | null;
  countryCode: string;
  storeCountry: string;
  platformLogoUrl: string | null;
  currencyCode: string;
  businessType: number;
}

/** The account's shop list, as getShops returns it. */
export function shopsOf(_account: SandboxAccount): SandboxShop[] {
  return [
    {
      id: DEFAULT_SHOP_ID,
      name: DEFAULT_SHOP_NAME,
      type: DEFAULT_SHOP_TYPE,
      status: ShopStatus.Enabled,
      createDate: '2025-01-01 00:00:00',
      updateDate: '2025-01-01 00:00:00',
      aliasName: DEFAULT_SHOP_NAME,
      syncInventory: 0,
      syncInventoryRate: 100,
      isCb: 0,
      trackUrlTemplate: '',
      emailNotification: 0,
      email: null,
      countryCode: 'US',
      storeCountry: 'United States',
      platformLogoUrl: null,
      currencyCode: 'USD',
      businessType: 1,
    },
  ];
}

/** The account's shop by id; an omitted id means the API-type shop. */
export function findShop(account: SandboxAccount, shopId?: string): SandboxShop | undefined {
  const shops = shopsOf(account);
  return shopId === undefined || shopId === ''
    ? shops.find((s) => s.type === DEFAULT_SHOP_TYPE)
    : shops.find((s) => s.id === shopId);
}
