/**
 * The sandbox's interception rules (docs/sandbox.md, "Interceptions"): pure functions from an
 * order's address, logistics and lines to the reasons the supplier would hold it back. An
 * intercepted order is created, but addCart, addCartConfirm and confirmOrder refuse to move it
 * until the cause is fixed (/__sandbox/orders/<id>/edit, updateLogistics).
 */
import { OrderStatus } from 'dropflow/supplier';
import { destination, findVariant, linesFor, findLine } from './seed.js';
import type { InterceptReason, SandboxOrder } from './state.js';

/** Codes of the interception reasons; one per rule, in the supplier's 1001xx style. */
export const InterceptCode = {
  PhoneRequired: 100101,
  ZipInvalid: 100102,
  TaxIdRequired: 100103,
  LogisticsUnavailable: 100104,
  StockInsufficient: 100105,
} as const;

export interface InterceptionInput {
  shippingCountryCode: string;
  shippingZip?: string | undefined;
  shippingPhone?: string | undefined;
  taxId?: string | undefined;
  logisticName: string;
  fromCountryCode: string;
  /** Platform-logistics storage; stock is checked only when given. */
  storageId?: string | undefined;
  /** Lines with a catalogue variant (store-flow lines not yet connected have vid ''). */
  lines: { vid: string; quantity: number }[];
}

/** Units of a variant at a storage still free for this order. */
export type Availability = (storageId: string, vid: string) => number;

export interface InterceptionOutcome {
  reasons: InterceptReason[];
  /** The logistics line does not serve the route: the order needs another line. */
  logisticsMiss: boolean;
}

const blank = (v: string | undefined): boolean => v === undefined || v.trim() === '';

export function phoneRule(o: InterceptionInput): InterceptReason | undefined {
  const dest = destination(o.shippingCountryCode);
  if (!dest?.phoneRequired || !blank(o.shippingPhone)) return undefined;
  return {
    code: InterceptCode.PhoneRequired,
    message: `shippingPhone is required for orders to ${dest.country} (${dest.countryCode})`,
  };
}

export function zipRule(o: InterceptionInput): InterceptReason | undefined {
  const dest = destination(o.shippingCountryCode);
  if (!dest?.zip) return undefined;
  const example = dest.zipExample === undefined ? '' : `, for example ${dest.zipExample}`;
  if (blank(o.shippingZip)) {
    return {
      code: InterceptCode.ZipInvalid,
      message: `shippingZip is required for orders to ${dest.country} (${dest.countryCode})${example}`,
    };
  }
  if (dest.zip.test(o.shippingZip!.trim())) return undefined;
  return {
    code: InterceptCode.ZipInvalid,
    message: `shippingZip "${o.shippingZip}" is not a valid postal code of ${dest.country} (${dest.countryCode})${example}`,
  };
}

export function taxIdRule(o: InterceptionInput): InterceptReason | undefined {
  const dest = destination(o.shippingCountryCode);
  if (!dest?.taxIdRequired || !blank(o.taxId)) return undefined;
  return {
    code: InterceptCode.TaxIdRequired,
    message: `taxId (the recipient's tax number, CPF or CNPJ) is required for orders to ${dest.country} (${dest.countryCode})`,
  };
}

export function logisticsRule(o: InterceptionInput): InterceptReason | undefined {
  const from = o.fromCountryCode.toUpperCase();
  const to = o.shippingCountryCode.toUpperCase();
  const serving = linesFor(from, to);
  if (serving.some((l) => l.logisticName.toLowerCase() === o.logisticName.toLowerCase())) {
    return undefined;
  }
  const known = findLine(o.logisticName) !== undefined;
  const options =
    serving.length === 0
      ? 'no line serves this route'
      : `lines serving it: ${serving.map((l) => l.logisticName).join(', ')}`;
  return {
    code: InterceptCode.LogisticsUnavailable,
    message: known
      ? `logisticName "${o.logisticName}" does not serve ${from} to ${to} (${options})`
      : `logisticName "${o.logisticName}" is not a known logistics line (${from} to ${to}: ${options})`,
  };
}

export function stockRule(
  o: InterceptionInput,
  available: Availability,
): InterceptReason | undefined {
  if (o.storageId === undefined) return undefined;
  const wanted = new Map<string, number>();
  for (const l of o.lines)
    if (l.vid !== '') wanted.set(l.vid, (wanted.get(l.vid) ?? 0) + l.quantity);
  const short = [...wanted].filter(([vid, qty]) => qty > available(o.storageId!, vid));
  if (short.length === 0) return undefined;
  const detail = short
    .map(
      ([vid, qty]) =>
        `${vid}: ${qty} ordered, ${Math.max(0, available(o.storageId!, vid))} available`,
    )
    .join('; ');
  return {
    code: InterceptCode.StockInsufficient,
    message: `products quantity exceeds the stock at storage ${o.storageId} (${detail})`,
  };
}

/** Every rule, in a stable order. */
export function evaluateInterceptions(
  o: InterceptionInput,
  available: Availability,
): InterceptionOutcome {
  const logistics = logisticsRule(o);
  const reasons = [
    phoneRule(o),
    zipRule(o),
    taxIdRule(o),
    logistics,
    stockRule(o, available),
  ].filter((r): r is InterceptReason => r !== undefined);
  return { reasons, logisticsMiss: logistics !== undefined };
}

/** Orders that hold stock at their storage until they leave it. */
const RESERVING: ReadonlySet<OrderStatus> = new Set([
  OrderStatus.Created,
  OrderStatus.InCart,
  OrderStatus.Unpaid,
  OrderStatus.Unshipped,
]);

/**
 * Units of `vid` reserved at `storageId` by orders other than `except`. An order held back for
 * lack of stock reserves nothing, so it cannot starve the orders after it.
 */
export function reservedUnits(
  orders: Iterable<SandboxOrder>,
  storageId: string,
  vid: string,
  except?: string,
): number {
  let units = 0;
  for (const o of orders) {
    if (o.svcOrderId === except || o.storageId !== storageId || !RESERVING.has(o.status)) continue;
    if (o.interceptReasons.some((r) => r.code === InterceptCode.StockInsufficient)) continue;
    for (const l of o.lines) if (l.vid === vid) units += l.quantity;
  }
  return units;
}

/** Seed stock of a variant at a storage minus what other orders reserve there. */
export function availableUnits(
  orders: Iterable<SandboxOrder>,
  storageId: string,
  vid: string,
  except?: string,
): number {
  const seedStock = findVariant(vid)?.stock[storageId] ?? 0;
  return seedStock - reservedUnits(orders, storageId, vid, except);
}
