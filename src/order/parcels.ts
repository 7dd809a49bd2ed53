/**
 * The parcels of one order, written by this class alone: an order never split has none here (it
 * is one parcel, its svcOrderId, shown by the order's own fields); a verified split turns a parcel
 * into its children, each followed by its own supplier code to delivery. It keeps the split claims
 * heard and not settled yet, and what the supplier said of each parcel. It decides nothing about
 * the order: steps/parcels.ts moves the order from what it says. Sandbox-safe.
 */
import {
  ParcelStage,
  type OrderStatus as OrderView,
  type ParcelView,
  type SupplierNews,
} from './contract.js';
import type { OrderLine } from './orderInput.js';
import type { Parcel, ParcelLine } from '../storeEvents/contract.js';
export { parcelsGlance } from './orderGlance.js';
import { endedStatus, OrderStatus, reachedStatus } from '../supplier/api/constants.js';
import type { OrderSnapshot } from './lookupActivities.js';

/** What the supplier said of one parcel, latest first-class facts merged. */
export type ParcelFacts = Pick<
  SupplierNews,
  'orderStatus' | 'logisticName' | 'trackNumber' | 'trackingUrl' | 'proofOfDelivery'
>;

/** A parcel that changed stage (or tracking number) when the facts were applied. */
export interface ParcelChange {
  kind: 'shipped' | 'retracked' | 'delivered' | 'cancelled';
  parcel: ParcelView;
}

/**
 * A split to be looked up: the supplier's ORDERSPLIT (parent and codes), or news under a code the
 * order does not know (`held`: taken as the order's own if the code turns out to be another name of
 * its order).
 */
export interface SplitClaim {
  parentCode?: string;
  codes: string[];
  held?: SupplierNews;
}

export interface SplitChild {
  code: string;
  lines: ParcelLine[];
  facts: ParcelFacts;
}

/**
 * How the parcels show outside: the status's list, and the open codes the sweeper asks for
 * (undefined: unchanged, nothing to write).
 */
export type ParcelsShown = (parcels: ParcelView[], openCodes: string[] | undefined) => void;

const FINAL: readonly ParcelStage[] = [ParcelStage.DELIVERED, ParcelStage.CANCELLED];

/** vid → quantity, for comparing lines. */
function tally(lines: readonly ParcelLine[]): Map<string, number> {
  const t = new Map<string, number>();
  for (const l of lines) t.set(l.vid, (t.get(l.vid) ?? 0) + l.quantity);
  return t;
}

/** Whether two lists hold the same quantity of each variant. */
export function sameLines(a: readonly ParcelLine[], b: readonly ParcelLine[]): boolean {
  const ta = tally(a);
  const tb = tally(b);
  return ta.size === tb.size && [...ta].every(([vid, q]) => tb.get(vid) === q);
}

/** `2 × V1, 1 × V2`: lines in words, for reasons and notes. */
export function linesText(lines: readonly ParcelLine[]): string {
  return [...tally(lines)].map(([vid, q]) => `${q} × ${vid}`).join(', ') || 'no lines';
}

/** The order as its one parcel: the supplier's order id, all its lines, its tracking. */
export function wholeParcel(s: Readonly<OrderView>, products: readonly OrderLine[]): ParcelView {
  return {
    code: s.svcOrderId ?? s.orderNumber,
    // The order's lines as parcels hold them: vid, quantity and the store's line id.
    lines: products.map((l) => ({
      vid: l.vid ?? l.sku ?? '',
      quantity: Number(l.quantity),
      ...(l.storeLineItemId != null && { storeLineId: l.storeLineItemId }),
    })),
    stage: ParcelStage.AWAITING_SHIPMENT,
    timeline: [],
    ...(s.logisticName !== undefined && { logisticName: s.logisticName }),
    ...(s.trackNumber !== undefined && { trackNumber: s.trackNumber }),
    ...(s.trackingUrl !== undefined && { trackingUrl: s.trackingUrl }),
  };
}

export class Parcels {
  private readonly list: ParcelView[] = [];
  private readonly facts = new Map<string, ParcelFacts>();
  /** What webhooks said of parcels that no answer of the supplier has shown since. */
  private readonly pushed = new Map<string, ParcelFacts>();
  private readonly claims: SplitClaim[] = [];

  constructor(private readonly shown: ParcelsShown = () => undefined) {}

  /** Whether the order was split: from then on it is followed parcel by parcel. */
  get split(): boolean {
    return this.list.length > 0;
  }

  /** Every parcel as the status shows it (empty while unsplit). */
  get view(): ParcelView[] {
    return this.list.map((p) => ({ ...p, lines: [...p.lines], timeline: [...p.timeline] }));
  }

  /** The parcels that ship: all but those split into others. */
  get leaves(): ParcelView[] {
    return this.list.filter((p) => p.stage !== ParcelStage.SPLIT);
  }

  /** The codes the supplier still has news of: parcels not cancelled, nor delivered with proof. */
  get openCodes(): string[] {
    return this.leaves
      .filter(
        (p) =>
          p.stage !== ParcelStage.CANCELLED &&
          (p.stage !== ParcelStage.DELIVERED || (p.proofOfDelivery?.length ?? 0) === 0),
      )
      .map((p) => p.code);
  }

  /** Whether `code` is one of the parcels (split ones included). */
  knows(code: string): boolean {
    return this.list.some((p) => p.code === code);
  }

  find(code: string): ParcelView | undefined {
    return this.list.find((p) => p.code === code);
  }

  // ---- claims of a split ----------------------------------------------------------------------

  /** A split the supplier announced (or a code that suggests one), to be looked up. */
  claimed(news: SplitClaim): void {
    if (news.codes.every((c) => this.knows(c))) return;
    this.claims.push(news);
  }

  get unsettled(): boolean {
    return this.claims.length > 0;
  }

  /** The claims heard so far, taken to be settled by one look-up. */
  takeClaims(): SplitClaim[] {
    return this.claims.splice(0, this.claims.length);
  }

  // ---- what happened ----------------------------------------------------------------------------

  /**
   * The supplier split `parent` into `children` (their lines add up: the caller checked). The
   * first split also files the order's one parcel, `parent`, from which it came.
   */
  splitInto(parent: { code: string; lines: ParcelLine[] }, children: SplitChild[]): void {
    const at = new Date().toISOString();
    let from = this.find(parent.code);
    if (from === undefined) {
      from = { ...parent, stage: ParcelStage.AWAITING_SHIPMENT, timeline: [] };
      this.list.push(from);
    }
    const codes = children.map((c) => c.code).join(', ');
    this.move(from, ParcelStage.SPLIT, at, `split into ${codes}`);
    for (const child of children) {
      this.list.push({
        code: child.code,
        lines: child.lines,
        stage: ParcelStage.AWAITING_SHIPMENT,
        splitFrom: parent.code,
        timeline: [{ stage: ParcelStage.AWAITING_SHIPMENT, at, note: `split from ${parent.code}` }],
      });
      this.facts.set(child.code, { ...child.facts });
    }
    this.show();
  }

  /**
   * What the supplier said of a parcel; false when the code is none of them. A webhook's word
   * (`pushed`) is kept aside until the supplier's own answer replaces it (`pushedShown`).
   */
  heard(code: string, facts: ParcelFacts, pushed = false): boolean {
    if (!this.knows(code)) return false;
    const into = pushed ? this.pushed : this.facts;
    const known = into.get(code) ?? {};
    for (const [k, v] of Object.entries(facts) as [keyof ParcelFacts, unknown][]) {
      if (v !== undefined) Object.assign(known, { [k]: v });
    }
    into.set(code, known);
    return true;
  }

  /** Whether webhooks spoke of parcels since the supplier last showed them. */
  get anyPushed(): boolean {
    return this.pushed.size > 0;
  }

  /** What webhooks said of parcels, taken to be looked up (news after this waits for the next). */
  takePushed(): [code: string, facts: ParcelFacts][] {
    const taken = [...this.pushed];
    this.pushed.clear();
    return taken;
  }

  /** Runs from before pushes were confirmed take a webhook's word as the supplier's. */
  trustPushed(): void {
    for (const [code, facts] of this.pushed) this.heard(code, facts);
    this.pushed.clear();
  }

  /** The supplier's own answer for the parcels webhooks spoke of replaces what they said. */
  pushedShown(codes: readonly string[], shown: readonly OrderSnapshot[]): void {
    for (const code of codes) {
      const found = shown.find((s) => s.svcOrderId === code || s.svcOrderCode === code);
      if (found === undefined) continue;
      this.heard(code, {
        ...(found.orderStatus !== undefined && { orderStatus: found.orderStatus }),
        ...(found.trackNumber !== undefined && { trackNumber: found.trackNumber }),
        ...(found.trackingUrl !== undefined && { trackingUrl: found.trackingUrl }),
        ...(found.logisticName !== undefined && { logisticName: found.logisticName }),
      });
    }
  }

  /** Applies what the supplier said to each parcel; returns the changes, in order. */
  advance(): ParcelChange[] {
    const at = new Date().toISOString();
    const changes: ParcelChange[] = [];
    for (const p of this.leaves) {
      if (p.stage === ParcelStage.CANCELLED) continue;
      const f = this.facts.get(p.code) ?? {};
      if (p.stage === ParcelStage.DELIVERED) {
        // The proof of delivery often comes after the delivery itself.
        if (f.proofOfDelivery !== undefined) p.proofOfDelivery = [...f.proofOfDelivery];
        continue;
      }
      const retracked =
        p.stage === ParcelStage.SHIPPED &&
        f.trackNumber !== undefined &&
        p.trackNumber !== undefined &&
        f.trackNumber !== p.trackNumber;
      if (f.logisticName !== undefined) p.logisticName = f.logisticName;
      if (f.trackNumber !== undefined) p.trackNumber = f.trackNumber;
      if (f.trackingUrl !== undefined) p.trackingUrl = f.trackingUrl;
      if (f.proofOfDelivery !== undefined) p.proofOfDelivery = [...f.proofOfDelivery];
      if (endedStatus(f.orderStatus)) {
        this.move(p, ParcelStage.CANCELLED, at, `the supplier reports ${f.orderStatus}`);
        changes.push({ kind: 'cancelled', parcel: p });
        continue;
      }
      const shipped = reachedStatus(f.orderStatus, OrderStatus.Shipped);
      if (shipped && p.stage === ParcelStage.AWAITING_SHIPMENT) {
        this.move(p, ParcelStage.SHIPPED, at);
        changes.push({ kind: 'shipped', parcel: p });
      } else if (retracked) {
        changes.push({ kind: 'retracked', parcel: p });
      }
      if (reachedStatus(f.orderStatus, OrderStatus.Delivered)) {
        this.move(p, ParcelStage.DELIVERED, at);
        changes.push({ kind: 'delivered', parcel: p });
      }
    }
    this.show();
    return changes;
  }

  /**
   * A deadline of the order passed: the parcels that had not met it (not shipped for `shipped` and
   * `firstScan`, not delivered for `delivered`; a cancelled or delivered parcel never is) are
   * marked late and returned.
   */
  missed(deadline: string): ParcelView[] {
    const met: readonly ParcelStage[] =
      deadline === 'delivered' ? FINAL : [...FINAL, ParcelStage.SHIPPED];
    const late = this.leaves.filter((p) => !met.includes(p.stage));
    for (const p of late) p.late = [...new Set([...(p.late ?? []), deadline])];
    if (late.length > 0) this.shown(this.view, undefined);
    return late;
  }

  /** A dispute on one parcel's lines moved (opened, resolved, …). */
  disputed(code: string, stage: string): void {
    const p = this.find(code);
    if (p === undefined) return;
    p.dispute = stage;
    this.shown(this.view, undefined);
  }

  // ---- where they stand -------------------------------------------------------------------------

  /** Whether any parcel has left the warehouse. */
  get anyShipped(): boolean {
    return this.leaves.some((p) => p.stage === ParcelStage.SHIPPED || p.stage === 'DELIVERED');
  }

  /** Whether every parcel is delivered or cancelled. */
  get settled(): boolean {
    return this.split && this.leaves.every((p) => FINAL.includes(p.stage));
  }

  get delivered(): ParcelView[] {
    return this.leaves.filter((p) => p.stage === ParcelStage.DELIVERED);
  }

  get cancelled(): ParcelView[] {
    return this.leaves.filter((p) => p.stage === ParcelStage.CANCELLED);
  }

  /** Whether every delivered parcel has its proof of delivery. */
  get proofComplete(): boolean {
    return this.delivered.every((p) => (p.proofOfDelivery?.length ?? 0) > 0);
  }

  private show(): void {
    this.shown(this.view, this.openCodes);
  }

  private move(p: ParcelView, stage: ParcelStage, at: string, note?: string): void {
    p.stage = stage;
    p.timeline.push({ stage, at, ...(note !== undefined && { note }) });
  }
}

/** Each parcel on a line of its own: code, stage, lines, tracking (for status and the UI). */
export function parcelLines(parcels: readonly ParcelView[] | undefined): string[] {
  if (parcels === undefined || parcels.length === 0) return [];
  return [
    'parcels:',
    ...parcels.map((p) =>
      [
        `  ${p.code}`,
        p.stage,
        linesText(p.lines),
        p.splitFrom !== undefined ? `from ${p.splitFrom}` : undefined,
        p.late !== undefined ? `LATE (${p.late.join(', ')})` : undefined,
        p.dispute !== undefined ? `dispute ${p.dispute}` : undefined,
        p.trackNumber,
        p.trackingUrl,
      ]
        .filter((x) => x !== undefined)
        .join('  '),
    ),
  ];
}

/** A parcel as the store hears of it. */
export function storeParcel(
  p: Pick<ParcelView, 'code' | 'lines' | 'logisticName' | 'trackNumber' | 'trackingUrl'>,
  trackingProvider?: string,
): Parcel {
  return {
    code: p.code,
    lines: p.lines,
    ...(p.logisticName !== undefined && { logisticName: p.logisticName }),
    ...(p.trackNumber !== undefined && { trackNumber: p.trackNumber }),
    ...(p.trackingUrl !== undefined && { trackingUrl: p.trackingUrl }),
    ...(trackingProvider !== undefined && { trackingProvider }),
  };
}
