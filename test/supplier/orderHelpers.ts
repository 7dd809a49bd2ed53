/** Order bodies and sandbox order controls shared by the order test files. */
import type { CreateOrderRequest } from '../../src/supplier/api/orders.js';
import type { SupplierClient } from '../../src/supplier/client.js';
import { sandboxUrl } from '../support/sandbox.js';

let seq = 0;

/** An order number no other test uses (≤ 50 characters). */
export function orderNumber(tag: string): string {
  seq += 1;
  return `${tag}-${process.pid}-${Date.now().toString(36)}-${seq}`;
}

/**
 * A valid service-logistics order (flow B) from China to the United States: two units of a
 * seed variant on a line that serves the route, a well-formed zip.
 */
export function usOrder(overrides: Partial<CreateOrderRequest> = {}): CreateOrderRequest {
  return {
    orderNumber: orderNumber('ord'),
    shippingZip: '90210',
    shippingCountryCode: 'US',
    shippingCountry: 'United States',
    shippingProvince: 'California',
    shippingCity: 'Beverly Hills',
    shippingCustomerName: 'Test Buyer',
    shippingAddress: '1 Test Street',
    logisticName: 'SvcPacket Ordinary',
    fromCountryCode: 'CN',
    products: [{ vid: 'P0001-V1', quantity: 2 }],
    ...overrides,
  };
}

/** How a store variant maps to a supplier variant (`fulfillment.connections`, `createConnection`). */
export interface StoreConnection {
  storeProductId: string;
  storeVariantId: string;
  svcProductId: string;
  svcVariantId: string;
}

/**
 * A store-flow order (orderFlow 2) of one store product the supplier has not connected, with
 * that product's id and its connection to a seed product (P0003 unless named).
 */
export function storeFlowOrder(tag: string): {
  order: CreateOrderRequest;
  storeProductId: string;
  connection: (svcProductId?: string) => StoreConnection;
} {
  const storeProductId = `sp-${orderNumber(tag)}`;
  const storeVariantId = `${storeProductId}-v1`;
  const order = usOrder({
    orderFlow: 2,
    products: [
      {
        vid: storeVariantId,
        storeProductId,
        storeProductImg: 'https://store.example.com/p.png',
        storeProductName: 'Store lamp',
        quantity: 1,
      },
    ],
  });
  const connection = (svcProductId = 'P0003'): StoreConnection => ({
    storeProductId,
    storeVariantId,
    svcProductId,
    svcVariantId: `${svcProductId}-V1`,
  });
  return { order, storeProductId, connection };
}

/** Connects a store variant at the supplier, as `dropflow connect` or a person in its console does. */
export async function connectAtSupplier(client: SupplierClient, c: StoreConnection): Promise<void> {
  await client.api.createConnection({
    defaultArea: 1,
    logistics: 'SvcPacket Ordinary',
    svcProductId: c.svcProductId,
    platformProductId: c.storeProductId,
    variantList: [{ svcVariantId: c.svcVariantId, platformVariantId: c.storeVariantId }],
  });
}

/** Cart, confirmation, parent order and payment of one created order. */
export async function payOrder(
  client: SupplierClient,
  svcOrderId: string,
): Promise<{ shipmentOrderId: string; payId: string }> {
  await client.api.addCart({ svcOrderIdList: [svcOrderId] });
  const confirmed = await client.api.addCartConfirm({ svcOrderIdList: [svcOrderId] });
  const shipmentOrderId = confirmed.shipmentsId!;
  const parent = await client.api.saveGenerateParentOrder({ shipmentOrderId });
  const payId = parent.payId!;
  await client.api.payBalanceV2({ shipmentOrderId, payId });
  return { shipmentOrderId, payId };
}

async function control(
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${sandboxUrl()}/__sandbox/orders/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** POST /__sandbox/orders/<id>/advance */
export function advance(
  svcOrderId: string,
  to: 'PROCESSING' | 'SHIPPED' | 'DELIVERED',
  trackNumber?: string,
) {
  return control(`${encodeURIComponent(svcOrderId)}/advance`, {
    to,
    ...(trackNumber !== undefined && { trackNumber }),
  });
}

/** POST /__sandbox/orders/<id>/edit: the merchant fixes the order's address. */
export function editOrder(svcOrderId: string, fields: Record<string, string>) {
  return control(`${encodeURIComponent(svcOrderId)}/edit`, fields);
}

/** POST /__sandbox/orders/<id>/price: the supplier raised the price of the order's goods. */
export function raisePrice(svcOrderId: string, risePercent: number) {
  return control(`${encodeURIComponent(svcOrderId)}/price`, { risePercent });
}

/** POST /__sandbox/postage: the supplier raised a logistics line's postage for an account. */
export async function raisePostage(openId: string, logisticName: string, surchargeUsd: number) {
  const res = await fetch(`${sandboxUrl()}/__sandbox/postage`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ openId, logisticName, surchargeUsd }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
