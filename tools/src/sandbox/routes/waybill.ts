/**
 * Waybills of platform-logistics orders (docs/supplier-api.md §7.7): upload only after payment,
 * update only while UNSHIPPED, a carrier the order's warehouse accepts. The lifecycle moves a
 * paid platform-logistics order to PROCESSING only once its waybill is here.
 */
import {
  type FilePart,
  OrderStatus,
  ShopLogisticsType,
  SupplierCode,
  updateWaybillInfo,
  uploadWaybillInfo,
  type WaybillRequest,
} from 'dropflow/supplier';
import { findOwnOrder, isPaid } from '../orderBook.js';
import { paramError, SandboxError, type SandboxRouter } from '../routing.js';
import type { Sandbox } from '../sandbox.js';
import { findStorage } from '../seed.js';
import type { SandboxAccount, SandboxOrder } from '../state.js';

type Input = Omit<WaybillRequest, 'waybillFile'> & { waybillFile: FilePart };

function orderFor(sb: Sandbox, account: SandboxAccount, input: Input): SandboxOrder {
  const order = findOwnOrder(sb, account.openId, input.svcOrderId);
  if (!order) throw paramError('svcOrderId', `order "${input.svcOrderId}" does not exist`);
  // orderId may carry the svc order id, its code or the caller's order number: it must agree.
  if (findOwnOrder(sb, account.openId, input.orderId) !== order) {
    throw paramError(
      'orderId',
      `"${input.orderId}" is not the same order as svcOrderId ${order.svcOrderId}`,
    );
  }
  if (order.shopLogisticsType === ShopLogisticsType.Supplier) {
    throw new SandboxError(
      SupplierCode.NotPlatformLogistics,
      'The order does not use platform logistics (shopLogisticsType 2): no waybill is needed',
    );
  }
  return order;
}

function checkCarrier(order: SandboxOrder, carrier: string): void {
  const storage = order.storageId === undefined ? undefined : findStorage(order.storageId);
  const brands = storage?.logisticsBrandList ?? [];
  if (!brands.some((b) => b.name.toLowerCase() === carrier.toLowerCase())) {
    throw new SandboxError(
      SupplierCode.CarrierNotSupported,
      `The warehouse ${order.storageId ?? ''} does not support the carrier "${carrier}" (supported: ${brands.map((b) => b.name).join(', ')})`,
    );
  }
}

function keep(sb: Sandbox, order: SandboxOrder, input: Input): boolean {
  if (input.waybillFile.data.length === 0) throw paramError('waybillFile', 'must not be empty');
  checkCarrier(order, input.svcShippingCompanyName);
  order.waybill = {
    carrier: input.svcShippingCompanyName,
    trackNumber: input.trackNumber,
    filename: input.waybillFile.filename,
    uploadedAt: sb.now(),
  };
  return true;
}

const statusChanged = (order: SandboxOrder, rule: string) =>
  new SandboxError(
    SupplierCode.OrderStatusChanged,
    `Orders status changed: the order is ${order.status}; ${rule}`,
  );

export function registerWaybillRoutes(r: SandboxRouter): void {
  r.serve(uploadWaybillInfo, (input, account, sb) => {
    const order = orderFor(sb, account, input);
    if (!isPaid(order)) throw statusChanged(order, 'a waybill can be uploaded only after payment');
    if (order.status !== OrderStatus.Unshipped)
      throw statusChanged(order, 'the order has left the warehouse');
    return keep(sb, order, input);
  });

  r.serve(updateWaybillInfo, (input, account, sb) => {
    const order = orderFor(sb, account, input);
    if (order.status !== OrderStatus.Unshipped) {
      throw statusChanged(order, 'a waybill can be updated only while the order is UNSHIPPED');
    }
    return keep(sb, order, input);
  });
}
