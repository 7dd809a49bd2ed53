/**
 * The order's way to its customer, from its tracking to its proof of delivery: each step moves
 * the stage, marks the milestone it reached and tells the store once. What it changes is written
 * by the part that owns it (the status, the deadlines, the store's notices).
 */
import { Stage, type ParcelView } from './contract.js';
import { StoreEventType, type OrderCompletedData } from '../storeEvents/contract.js';
import { Milestone } from './slaClock.js';
import { storeParcel, wholeParcel, type Parcels } from './parcels.js';
import type { StatusProjection } from './statusProjection.js';
import type { Deadlines } from './deadlines.js';
import type { StoreNotices } from './storeNotices.js';
import type { SupplierWord } from './supplierWord.js';
import type { CurrentOrder } from './currentOrder.js';

/** The parts the delivery reads and tells. */
export interface DeliveryHost {
  readonly view: StatusProjection;
  readonly deadlines: Pick<Deadlines, 'reached'>;
  readonly notices: StoreNotices;
  readonly parcels: Parcels;
  readonly supplier: Pick<SupplierWord, 'news'>;
  readonly current: Pick<CurrentOrder, 'input'>;
}

export class Delivery {
  constructor(private readonly o: DeliveryHost) {}

  /** The tracking the supplier told us, in the status. */
  trackingHeard(): void {
    const { view, deadlines } = this.o;
    const n = this.o.supplier.news;
    view.record({
      trackNumber: n.trackNumber,
      trackingUrl: n.trackingUrl,
      trackingEvents: n.trackingEvents,
      logisticName: n.logisticName,
    });
    if (view.status.trackNumber !== undefined) deadlines.reached(Milestone.Shipped);
    if ((view.status.trackingEvents?.length ?? 0) > 0) deadlines.reached(Milestone.FirstScan);
    // A tracking number that changed after shipping is told again.
    if (this.o.notices.retracked(view.status.trackNumber)) this.tellShipped();
  }

  shipped(): void {
    this.o.deadlines.reached(Milestone.Shipped);
    this.o.view.enter(Stage.SHIPPED);
    if (!this.o.notices.shippedTold) this.tellShipped();
  }

  private tellShipped(): void {
    const s = this.o.view.status;
    const carrier = this.carrier();
    this.o.notices.shipped({
      parcel: storeParcel(this.whole(), carrier),
      ...(s.trackNumber !== undefined && { trackNumber: s.trackNumber }),
      ...(s.trackingUrl !== undefined && { trackingUrl: s.trackingUrl }),
      ...(s.logisticName !== undefined && { logisticName: s.logisticName }),
      ...(carrier !== undefined && { carrier }),
    });
  }

  /** Delivered: the order's one parcel, or (split) the last of its parcels delivered or cancelled. */
  delivered(): void {
    this.o.deadlines.reached(Milestone.Delivered);
    this.o.view.enter(Stage.DELIVERED);
    const p = this.o.parcels;
    const delivered = p.split ? p.delivered : [this.whole()];
    const trackNumber = delivered.at(-1)?.trackNumber;
    this.o.notices.once(StoreEventType.OrderDelivered, {
      deliveredAt: new Date().toISOString(),
      ...(trackNumber !== undefined && { trackNumber }),
      parcels: delivered.map((d) => storeParcel(d, this.carrier())),
      ...(p.cancelled.length > 0 && { cancelledParcels: p.cancelled.map((c) => storeParcel(c)) }),
    });
  }

  /** A parcel left: the order is SHIPPED with its first (milestone and stage only). */
  parcelShipped(): void {
    this.o.deadlines.reached(Milestone.Shipped);
    if (this.o.view.stage === Stage.AWAITING_SHIPMENT) this.o.view.enter(Stage.SHIPPED);
  }

  proofOfDeliveryReceived(urls: string[]): void {
    this.o.view.record({ proofOfDelivery: urls });
    this.completed('proof of delivery received', { proofOfDelivery: urls });
  }

  /** Delivered, and the supplier had no proof of delivery within the wait. */
  completedWithoutProof(why: string): void {
    this.completed(why, { proofOfDelivery: [], noProofReason: why });
  }

  private completed(note: string, data: OrderCompletedData): void {
    this.o.view.enter(Stage.COMPLETED, note);
    this.o.notices.once(StoreEventType.OrderCompleted, data);
  }

  /** The order as its one parcel: the supplier's order id, all its lines, its tracking. */
  whole(): ParcelView {
    return wholeParcel(this.o.view.status, this.o.current.input.order.products);
  }

  /** The waybill's carrier (platform logistics), else the logistics line. */
  private carrier(): string | undefined {
    return this.o.current.input.fulfillment.waybill?.carrier ?? this.o.view.status.logisticName;
  }
}
