/**
 * Logistics of one order (docs/supplier-api.md §7.6, §7.9): the options serving its route,
 * changing the line before payment, and the sandbox tracking number.
 */
import {
  getOrderLogisticsInfo,
  OrderStatus,
  SupplierCode,
  updateLogistics,
  updateTrackNumber,
} from 'dropflow/supplier';
import { availableUnits, InterceptCode } from '../interceptions.js';
import {
  destinationOf,
  evaluateOrder,
  findOwnOrder,
  priceOrder,
  servingLine,
  surchargeFor,
} from '../orderBook.js';
import { orderWeight } from '../orderView.js';
import { paramError, SandboxError, type SandboxRouter } from '../routing.js';
import type { Sandbox } from '../sandbox.js';
import { findStorage, LOGISTICS_LINES, linesFor, postage, type LogisticsLine } from '../seed.js';
import type { SandboxOrder } from '../state.js';

/** Option ids are stable: one per seed logistics line. */
const OPTION_BASE_ID = 10_001;
const optionId = (line: LogisticsLine) => OPTION_BASE_ID + LOGISTICS_LINES.indexOf(line);
const lineOf = (id: number) => LOGISTICS_LINES[id - OPTION_BASE_ID];

/** Whether the order's storage has stock for every line; null without a storage. */
function hasStock(sb: Sandbox, order: SandboxOrder): boolean | null {
  if (order.storageId === undefined) return null;
  const orders = Object.values(sb.state.orders);
  return order.lines.every(
    (l) =>
      l.vid === '' ||
      availableUnits(orders, order.storageId!, l.vid, order.svcOrderId) >= l.quantity,
  );
}

const CHANGEABLE: ReadonlySet<OrderStatus> = new Set([OrderStatus.Created, OrderStatus.InCart]);
/** Statuses in which updateTrackNumber may set a tracking number. */
const TRACK_NUMBER_STATUSES: ReadonlySet<OrderStatus> = new Set([
  OrderStatus.Unshipped,
  OrderStatus.Shipped,
  OrderStatus.Delivered,
]);

export function registerOrderLogisticsRoutes(r: SandboxRouter): void {
  r.serve(getOrderLogisticsInfo, ({ orderCode }, account, sb) => {
    const order = findOwnOrder(sb, account.openId, orderCode);
    if (!order) throw paramError('orderCode', 'the order does not exist');
    const dest = destinationOf(order);
    const grams = orderWeight(order);
    return linesFor(order.fromCountryCode, dest).map((line) => {
      const fee =
        Math.round(
          (postage(line, grams) + surchargeFor(sb, account.openId, line.logisticName)) * 100,
        ) / 100;
      return {
        id: optionId(line),
        orderCode: order.svcOrderId,
        logisticsName: line.logisticName,
        logisticsNameAlias: '',
        postage: fee,
        postageDiscountPrice: fee,
        basePostage: line.base,
        remoteAmount: 0,
        packPrice: 0,
        serviceAmount: null,
        startCountry: order.fromCountryCode,
        arrivalTime: `${line.days[0]}-${line.days[1]}`,
        channelId: optionId(line),
        isChecked: line.logisticName.toLowerCase() === order.logisticName.toLowerCase(),
        checkIossSuccess: null,
        taxesFlag: dest === 'BR' ? 1 : 0,
        taxesType: dest === 'BR' ? 2 : 0,
        availableTrackingInfo: true,
        remark: '',
        hasStock: hasStock(sb, order),
      };
    });
  });

  r.serve(updateLogistics, ({ id, orderCode, logisticsName, from }, account, sb) => {
    const order = findOwnOrder(sb, account.openId, orderCode);
    if (!order) throw paramError('orderCode', 'the order does not exist');
    // docs/supplier-api.md §6.2: only up to IN_CART; UNPAID is already confirmed.
    if (!CHANGEABLE.has(order.status)) {
      throw new SandboxError(
        SupplierCode.OrderStatusChanged,
        `Orders status changed: the order is ${order.status}, logistics can change only while CREATED or IN_CART`,
      );
    }
    const line = lineOf(Number(id));
    if (!line)
      throw paramError('id', `no logistics option ${id}; take one from getOrderLogisticsInfo`);
    if (
      logisticsName !== undefined &&
      logisticsName.toLowerCase() !== line.logisticName.toLowerCase()
    ) {
      throw paramError(
        'logisticsName',
        `"${logisticsName}" is not the name of option ${id} (${line.logisticName})`,
      );
    }
    const dest = destinationOf(order);
    if (!linesFor(order.fromCountryCode, dest).includes(line)) {
      const reason = {
        code: InterceptCode.LogisticsUnavailable,
        message: `logisticsName "${line.logisticName}" does not serve ${order.fromCountryCode} to ${dest}`,
      };
      return {
        orderCompletedOutputVo: null,
        shoppingCartOrderVo: null,
        abnormalReason: { logisticsCanUser: false, message: reason.message },
        interceptAbnormalReasons: [reason],
        unInterceptAbnormalReasons: [],
      };
    }

    order.logisticName = line.logisticName;
    priceOrder(order, surchargeFor(sb, order.openId, line.logisticName));
    evaluateOrder(sb, order);
    const completed = {
      // Not shown beyond areaEnName and orderQuantity; the rest is the sandbox's choice.
      areaEnName: (order.storageId && findStorage(order.storageId)?.areaEn) ?? dest,
      orderQuantity: order.lines.reduce((n, l) => n + l.quantity, 0),
      orderId: order.svcOrderId,
      logisticName: order.logisticName,
      postageAmount: order.postageAmount,
      productAmount: order.productAmount,
      orderAmount: order.orderAmount,
    };
    return {
      orderCompletedOutputVo: completed,
      shoppingCartOrderVo: from === 2 ? completed : null,
      abnormalReason: {},
      interceptAbnormalReasons: [],
      // Reasons the new line does not cure (address, stock): a hint, the change took effect.
      unInterceptAbnormalReasons: order.interceptReasons,
    };
  });

  r.serve(updateTrackNumber, ({ orderId, trackNumber }, account, sb) => {
    const order =
      sb.state.orders[orderId] ??
      Object.values(sb.state.orders).find((o) => o.svcOrderCode === orderId);
    if (!order || order.awaitingConnection)
      throw new SandboxError(SupplierCode.OrderNotFound, 'Order not found');
    if (order.openId !== account.openId) {
      throw new SandboxError(
        SupplierCode.SandboxOrderOfAnotherAccount,
        'The sandbox order belongs to another account',
      );
    }
    if (!order.isSandbox) {
      throw new SandboxError(
        SupplierCode.NotSandboxOrder,
        'Not a sandbox order (create it with isSandbox 1)',
      );
    }
    if (!TRACK_NUMBER_STATUSES.has(order.status)) {
      throw new SandboxError(
        SupplierCode.StatusForbidsTrackNumber,
        `The order status ${order.status} does not allow a tracking number update (UNSHIPPED, SHIPPED or DELIVERED only)`,
      );
    }
    if (!servingLine(order)) {
      throw new SandboxError(
        SupplierCode.LogisticsInfoNotFound,
        'Order logistics information not found',
      );
    }
    order.trackNumber = trackNumber;
    return true;
  });
}
