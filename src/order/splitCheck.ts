/**
 * Whether the supplier split a parcel, judged from one look-up of every code involved (the open
 * parcels, the codes claimed, the order number): never from the ORDERSPLIT webhook alone. Pure
 * and sandbox-safe; steps/parcels.ts acts on the verdict.
 */
import type { OrderSnapshot } from './lookupActivities.js';
import type { ParcelLine } from '../storeEvents/contract.js';
import { linesText, sameLines, type SplitChild, type SplitClaim } from './parcels.js';
import type { SupplierNews } from './contract.js';

export interface KnownParcel {
  code: string;
  lines: ParcelLine[];
}

export type SplitVerdict =
  /** `parent` became `children`: their lines add up to its lines. */
  | { kind: 'split'; parent: KnownParcel; children: SplitChild[] }
  /** New codes of the order whose lines do not add up to the parcel they came from. */
  | { kind: 'mismatch'; parent: KnownParcel; children: SplitChild[]; why: string }
  /** A claimed code the supplier does not show (yet: its view may lag). */
  | { kind: 'unconfirmed'; why: string }
  /** Nothing split: the codes were other names of known parcels (their news is the parcel's). */
  | { kind: 'none' };

const idsOf = (s: OrderSnapshot): string[] =>
  [s.svcOrderId, s.svcOrderCode, s.orderId].filter((id): id is string => !!id);

export function lookUpKeys(
  open: readonly KnownParcel[],
  claims: readonly SplitClaim[],
  orderNumber: string,
): string[] {
  return [...new Set([...open.map((p) => p.code), ...claims.flatMap((c) => c.codes), orderNumber])];
}

/** News held under another name of a known parcel, renamed to that parcel's code. */
export function aliasNews(
  claims: readonly SplitClaim[],
  found: readonly OrderSnapshot[],
  known: readonly string[],
): SupplierNews[] {
  return claims.flatMap((c) => {
    if (c.held === undefined) return [];
    const code = c.codes[0];
    const same = found.find(
      (s) => idsOf(s).includes(code!) && idsOf(s).some((id) => known.includes(id)),
    );
    const name = same && idsOf(same).find((id) => known.includes(id));
    return name === undefined ? [] : [{ ...c.held, svcOrderId: name }];
  });
}

function child(s: OrderSnapshot, parent: KnownParcel): SplitChild {
  const storeLine = (vid: string) => parent.lines.find((l) => l.vid === vid)?.storeLineId;
  return {
    code: s.svcOrderId,
    lines: (s.lines ?? []).map((l) => {
      const storeLineId = l.storeLineItemId ?? storeLine(l.vid);
      return {
        vid: l.vid,
        quantity: l.quantity,
        ...(storeLineId !== undefined && { storeLineId }),
      };
    }),
    facts: {
      ...(s.orderStatus !== undefined && { orderStatus: s.orderStatus }),
      ...(s.logisticName !== undefined && { logisticName: s.logisticName }),
      ...(s.trackNumber !== undefined && { trackNumber: s.trackNumber }),
      ...(s.trackingUrl !== undefined && { trackingUrl: s.trackingUrl }),
    },
  };
}

/** Which open parcel the new codes came from. */
function parentOf(
  open: readonly KnownParcel[],
  claims: readonly SplitClaim[],
  found: readonly OrderSnapshot[],
  newLines: ParcelLine[],
): KnownParcel | undefined {
  const named = claims.map((c) => c.parentCode).find((p) => open.some((o) => o.code === p));
  if (named !== undefined) return open.find((o) => o.code === named);
  if (open.length === 1) return open[0];
  const byLines = open.filter((o) => sameLines(o.lines, newLines));
  if (byLines.length === 1) return byLines[0];
  const unlisted = open.filter((o) => !found.some((s) => idsOf(s).includes(o.code)));
  return unlisted.length === 1 ? unlisted[0] : undefined;
}

/**
 * The verdict on `claims` given the supplier's answer `found` to `lookUpKeys`. `known`: every code
 * of the order (split parcels included), `open`: the parcels that may split now.
 */
export function judgeSplit(
  orderNumber: string,
  open: readonly KnownParcel[],
  known: readonly string[],
  claims: readonly SplitClaim[],
  found: readonly OrderSnapshot[],
): SplitVerdict {
  const claimed = new Set(claims.flatMap((c) => c.codes));
  const fresh = found.filter(
    (s) =>
      !idsOf(s).some((id) => known.includes(id)) &&
      (s.orderNumber === orderNumber || idsOf(s).some((id) => claimed.has(id))),
  );
  const missing = [...claimed].filter(
    (code) => !known.includes(code) && !found.some((s) => idsOf(s).includes(code)),
  );
  if (missing.length > 0) {
    return { kind: 'unconfirmed', why: `the supplier does not show ${missing.join(', ')}` };
  }
  if (fresh.length === 0) return { kind: 'none' };
  const newLines = fresh.flatMap((s) => s.lines ?? []);
  const parent = parentOf(open, claims, found, newLines);
  if (parent === undefined) {
    return {
      kind: 'unconfirmed',
      why: `new supplier orders ${fresh.map((s) => s.svcOrderId).join(', ')} (${linesText(newLines)}) match none of the parcels`,
    };
  }
  const children = fresh.map((s) => child(s, parent));
  if (sameLines(parent.lines, newLines)) return { kind: 'split', parent, children };
  return {
    kind: 'mismatch',
    parent,
    children,
    why:
      `the supplier split ${parent.code} (${linesText(parent.lines)}) into ` +
      children.map((c) => `${c.code} (${linesText(c.lines)})`).join(', ') +
      ': their lines do not add up to the parcel they came from',
  };
}
