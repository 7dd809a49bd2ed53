/**
 * The pay window of a parent order (setting `payWindowSeconds`). saveGenerateParentOrder gives a
 * payId that can be paid until its payExpireTime, and the same payId on every call until then.
 * After it, paying is refused (1603101 "payment expired", nothing charged) and the next
 * saveGenerateParentOrder of a shipment that is still unpaid gives a new payId and window.
 */
import { SupplierCode } from 'dropflow/supplier';
import { utcDate } from './orderView.js';
import { SandboxError } from './routing.js';
import type { Sandbox } from './sandbox.js';
import type { SandboxShipment } from './state.js';

/** Replaced payIds remembered per shipment, so that paying with one is refused as expired. */
const EXPIRED_PAY_IDS_KEPT = 10;

export function payExpired(sb: Sandbox, shipment: SandboxShipment): boolean {
  return shipment.payExpiresAt !== undefined && sb.now() >= shipment.payExpiresAt;
}

/**
 * Gives the shipment a payId with a fresh window when it has none yet, or when its window is
 * over and it can still be paid (`payable`).
 */
export function ensurePayId(sb: Sandbox, shipment: SandboxShipment, payable: boolean): void {
  if (shipment.payId !== undefined && !(payable && payExpired(sb, shipment))) return;
  if (shipment.payId !== undefined) {
    shipment.expiredPayIds = [...(shipment.expiredPayIds ?? []), shipment.payId].slice(
      -EXPIRED_PAY_IDS_KEPT,
    );
  }
  shipment.payId = sb.nextId('PAY');
  shipment.payExpiresAt = sb.now() + sb.settingsFor(shipment.openId).payWindowSeconds * 1_000;
  sb.changed();
}

/** True when `payId` is the shipment's and its window is over, or an earlier, replaced one. */
export function payIdExpired(sb: Sandbox, shipment: SandboxShipment, payId: string): boolean {
  return payId === shipment.payId
    ? payExpired(sb, shipment)
    : (shipment.expiredPayIds ?? []).includes(payId);
}

/** Ends the shipment's pay window now (the control POST /__sandbox/orders/<id>/expire-payment). */
export function expirePayWindow(sb: Sandbox, shipment: SandboxShipment): void {
  shipment.payExpiresAt = sb.now();
  sb.changed();
}

/** The refusal of a payment whose window is over; counted as `expiredPaymentsRefused`. */
export function refuseExpired(
  sb: Sandbox,
  shipment: SandboxShipment,
  payId?: string,
): SandboxError {
  sb.count(shipment.openId, (s) => (s.expiredPaymentsRefused += 1));
  const which =
    payId === undefined || payId === shipment.payId
      ? `payExpireTime ${utcDate(shipment.payExpiresAt) ?? 'unknown'}`
      : `payId "${payId}" was replaced`;
  return new SandboxError(
    SupplierCode.PayFailed,
    `Order pay fail: payment expired (${which}); call saveGenerateParentOrder for a new payId`,
  );
}
