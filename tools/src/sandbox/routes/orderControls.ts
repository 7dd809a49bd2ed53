/**
 * Order controls under /__sandbox/orders/ (docs/sandbox.md), not part of the supplier's API:
 * - POST /__sandbox/orders/<svcOrderId>/advance {"to": "PROCESSING"|"SHIPPED"|"DELIVERED",
 *   "trackNumber"?}: with a number, the parcel ships under it (shipped already: re-labelled)
 * - POST /__sandbox/orders/<svcOrderId>/split {"parts": [[0], [1, 2]]}: the supplier splits the
 *   order's lines (by index; default one part per line) into new orders, now if it is paid and
 *   unshipped, else at its payment (split.ts); `"now": true` splits an order not yet in a cart at
 *   once (the supplier filing it as several), its new orders unpaid.
 * - POST /__sandbox/orders/<svcOrderId>/cancel: the supplier cancels the order (a parcel of a
 *   split order, say), as its staff may; not once it is delivered.
 * - POST /__sandbox/orders/<svcOrderId>/edit {address fields}: what a merchant does in the
 *   supplier's web console to fix an intercepted order before adding it to the cart again.
 * - POST /__sandbox/orders/<svcOrderId>/expire-payment: the pay window of the order's parent
 *   order is over now.
 * - POST /__sandbox/orders/<svcOrderId>/price {"risePercent": 20}: the supplier raised the price of
 *   the order's goods (every line) since it was created; allowed until the order is paid.
 * - POST /__sandbox/postage {"openId": "...", "logisticName": "...", "surchargeUsd": 4}: the
 *   supplier raised the postage of a logistics line for an account (0 removes the surcharge);
 *   the account's unpaid orders on it are re-priced, and their optional logistics show it.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { fields, OrderStatus } from 'dropflow/supplier';
import { advanceOrder, LIFECYCLE_TARGETS } from '../lifecycle.js';
import { evaluateOrder, isPaid, priceOrder, setStatus, surchargeFor } from '../orderBook.js';
import { findLine } from '../seed.js';
import { orderObject, utcDate } from '../orderView.js';
import { expirePayWindow } from '../payWindow.js';
import { linePerPart, partitionError, splitOrder } from '../split.js';
import type { Sandbox } from '../sandbox.js';
import type { SandboxOrder } from '../state.js';
import { control, orderOf, refuse } from './control.js';

/** `trackNumber`: the parcel ships (or, shipped, is re-labelled) under this number. */
const Advance = z
  .object({ to: z.enum(LIFECYCLE_TARGETS), trackNumber: z.string().min(1).max(64).optional() })
  .refine((a) => a.trackNumber === undefined || a.to !== 'PROCESSING', {
    message: 'trackNumber needs to SHIPPED or DELIVERED',
    path: ['trackNumber'],
  });
/** Line indexes per part; default: one part per line. */
const Split = z.strictObject({
  parts: z.array(z.array(z.number().int().nonnegative())).optional(),
  /** Split an order not yet in a cart now, as the supplier may when it files an order. */
  now: z.boolean().optional(),
});

/** The address fields of the create-order body, with its maximum lengths. */
const Edit = z
  .strictObject({
    shippingZip: fields.optText(20),
    shippingPhone: fields.optText(20),
    taxId: fields.optText(20),
    shippingCountry: fields.optText(50),
    shippingProvince: fields.optText(50),
    shippingCity: fields.optText(50),
    shippingCounty: fields.optText(50),
    shippingCustomerName: fields.optText(50),
    shippingAddress: fields.optText(500),
    shippingAddress2: fields.optText(500),
    houseNumber: fields.optText(20),
    email: fields.optText(50),
    consigneeID: fields.optText(20),
  })
  .refine((o) => Object.keys(o).length > 0, { error: 'name at least one field to change' });

const EDITABLE: ReadonlySet<OrderStatus> = new Set([OrderStatus.Created, OrderStatus.InCart]);

const PriceRise = z.strictObject({ risePercent: z.number().gt(-100).max(1_000) });
const Postage = z.strictObject({
  openId: z.string().min(1),
  logisticName: z.string().min(1),
  surchargeUsd: z.number().min(0).max(1_000),
});

/** Orders whose amounts a price change still reaches: not paid yet. */
const REPRICEABLE: ReadonlySet<OrderStatus> = new Set([
  OrderStatus.Created,
  OrderStatus.InCart,
  OrderStatus.Unpaid,
]);
const repriceable = (o: SandboxOrder) => REPRICEABLE.has(o.status) && !isPaid(o);

export function registerOrderControlRoutes(app: FastifyInstance, sb: Sandbox): void {
  const orderControl = <T>(
    action: string,
    body: z.ZodType<T> | undefined,
    act: (order: SandboxOrder, p: T) => unknown,
  ) => {
    control(app, 'POST', `/__sandbox/orders/:svcOrderId/${action}`, { body }, (p, req) =>
      act(orderOf(sb, req.params.svcOrderId ?? ''), p),
    );
  };

  orderControl('advance', Advance, (order, p) => {
    const before = order.trackNumber;
    if (p.trackNumber !== undefined) order.trackNumber = p.trackNumber;
    const outcome = advanceOrder(sb, order, p.to);
    if (!outcome.ok) {
      order.trackNumber = before;
      throw refuse(409, outcome.reason, { orderStatus: order.status });
    }
    sb.changed();
    return orderObject(order, 'detail');
  });

  orderControl('split', Split, (order, p) => {
    const parts = p.parts ?? linePerPart(order);
    if (p.now === true && order.status === OrderStatus.Created) {
      const outcome = splitOrder(sb, order, parts, { atCreation: true });
      if (!outcome.ok) throw refuse(409, outcome.reason);
      return { svcOrderId: order.svcOrderId, splitInto: outcome.codes };
    }
    if (!isPaid(order)) {
      const why = partitionError(order, parts);
      if (why !== undefined) throw refuse(400, why);
      order.pendingSplit = parts;
      sb.changed();
      return { svcOrderId: order.svcOrderId, splitAtPayment: parts };
    }
    const outcome = splitOrder(sb, order, parts);
    if (!outcome.ok) throw refuse(409, outcome.reason);
    return { svcOrderId: order.svcOrderId, splitInto: outcome.codes };
  });

  orderControl('cancel', undefined, (order) => {
    if (order.status === OrderStatus.Delivered || order.splitInto !== undefined)
      throw refuse(409, `the order is ${order.status}: it cannot be cancelled`);
    setStatus(sb, order, OrderStatus.Cancelled);
    return orderObject(order, 'detail');
  });

  orderControl('edit', Edit, (order, p) => {
    if (!EDITABLE.has(order.status)) {
      throw refuse(
        409,
        `the order is ${order.status}: only CREATED or IN_CART orders can be edited`,
      );
    }
    Object.assign(order.request, p);
    evaluateOrder(sb, order);
    sb.changed();
    return {
      ...orderObject(order, 'detail'),
      logisticsMiss: order.logisticsMiss,
      interceptOrderReasons: order.interceptReasons,
    };
  });

  orderControl('price', PriceRise, (order, p) => {
    if (!repriceable(order))
      throw refuse(409, `the order is ${order.status}: its price is settled`);
    const factor = 1 + p.risePercent / 100;
    for (const line of order.lines)
      line.sellPrice = Math.round(line.sellPrice * factor * 100) / 100;
    priceOrder(order, surchargeFor(sb, order.openId, order.logisticName));
    sb.changed();
    return orderObject(order, 'detail');
  });

  control(app, 'POST', '/__sandbox/postage', { body: Postage }, (p) => {
    const line = findLine(p.logisticName);
    if (!line) throw refuse(404, 'no such logistics line');
    const key = line.logisticName.toLowerCase();
    const { openId } = p;
    if (!sb.state.accounts[openId]) throw refuse(404, 'no such account');
    const surcharges = ((sb.state.postageSurcharges ??= {})[openId] ??= {});
    surcharges[key] = p.surchargeUsd;
    const repriced = Object.values(sb.state.orders).filter(
      (o) => o.openId === openId && repriceable(o) && o.logisticName.toLowerCase() === key,
    );
    for (const order of repriced) priceOrder(order, p.surchargeUsd);
    sb.changed();
    return {
      logisticName: line.logisticName,
      surchargeUsd: p.surchargeUsd,
      repriced: repriced.map((o) => o.svcOrderId),
    };
  });

  orderControl('expire-payment', undefined, (order) => {
    const shipment =
      order.shipmentOrderId === undefined ? undefined : sb.state.shipments[order.shipmentOrderId];
    if (shipment?.payId === undefined) {
      throw refuse(
        409,
        'the order has no payment id yet: confirm it and call saveGenerateParentOrder',
      );
    }
    if (shipment.paid) throw refuse(409, 'the parent order is paid');
    expirePayWindow(sb, shipment);
    return {
      shipmentOrderId: shipment.id,
      payId: shipment.payId,
      payExpireTime: utcDate(shipment.payExpiresAt),
    };
  });
}
