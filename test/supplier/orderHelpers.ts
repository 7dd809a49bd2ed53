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
export function advance(svcOrderId: string, to: 'PROCESSING' | 'SHIPPED' | 'DELIVERED') {
  return control(`${encodeURIComponent(svcOrderId)}/advance`, { to });
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
