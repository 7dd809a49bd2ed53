/**
 * Tracking written to a WooCommerce order, never twice: each write first reads what the order
 * has. A parcel goes to the Shipment Tracking extension's route where the site has it, otherwise
 * into a customer note; the parcels that left are kept in the order's `_dropflow_parcels` meta,
 * and once they carry every line the order is marked completed. Delivery and other news become
 * notes, each written once.
 */
import { StoreApiError, StoreFailure } from '../apiError.js';
import { NOTE_MARK, type StoreOrderTarget, type StoreParcel } from '../parcel.js';
import type { WooRest } from './rest.js';

export const PARCELS_META = '_dropflow_parcels';

interface WooOrder {
  id: number;
  status: string;
  meta_data: { key: string; value: unknown }[];
}

interface WooNote {
  note: string;
  customer_note: boolean;
}

interface WooShipmentTracking {
  tracking_number: string;
}

type ShippedLines = Record<string, { storeLineId: string; quantity: number }[]>;

/** The customer's note for a parcel that left without the tracking extension. */
export function shippedNote(parcel: StoreParcel): string {
  const by = parcel.company === undefined ? '' : ` with ${parcel.company}`;
  if (parcel.trackNumber === undefined)
    return `Part of your order has shipped${by} (parcel ${parcel.code}).`;
  const link = parcel.trackingUrl === undefined ? '' : `: ${parcel.trackingUrl}`;
  return `Your parcel has shipped${by}, tracking number ${parcel.trackNumber}${link}`;
}

export class WooTracking {
  private readonly orderPath: string;

  constructor(
    private readonly rest: WooRest,
    private readonly target: StoreOrderTarget,
  ) {
    this.orderPath = `/wc/v3/orders/${encodeURIComponent(target.orderId)}`;
  }

  /** The parcel left: its tracking (or note) once, then the order completed if all has left. */
  async shipped(parcel: StoreParcel): Promise<void> {
    const order = await this.rest.get<WooOrder>(this.orderPath);
    const tracked = parcel.trackNumber !== undefined && (await this.addTracking(parcel));
    if (!tracked) await this.customerNoteOnce(shippedNote(parcel));
    await this.recordParcel(order, parcel);
  }

  /** Through the Shipment Tracking extension; false when the site does not have it. */
  private async addTracking(parcel: StoreParcel): Promise<boolean> {
    const path = `/wc-shipment-tracking/v3/orders/${encodeURIComponent(this.target.orderId)}/shipment-trackings`;
    let present: WooShipmentTracking[];
    try {
      present = await this.rest.get<WooShipmentTracking[]>(path);
    } catch (err) {
      if (err instanceof StoreApiError && err.kind === StoreFailure.Version) return false;
      throw err;
    }
    if (present.some((t) => t.tracking_number === parcel.trackNumber)) return true;
    await this.rest.post(path, {
      tracking_number: parcel.trackNumber,
      custom_tracking_provider: parcel.company ?? 'Carrier',
      ...(parcel.trackingUrl !== undefined && { custom_tracking_link: parcel.trackingUrl }),
      date_shipped: new Date().toISOString().slice(0, 10),
    });
    return true;
  }

  /** Keeps the parcel in the order's meta; completes the order once every line has left. */
  private async recordParcel(order: WooOrder, parcel: StoreParcel): Promise<void> {
    const raw = order.meta_data.find((m) => m.key === PARCELS_META)?.value;
    const shipped: ShippedLines =
      typeof raw === 'string'
        ? (JSON.parse(raw) as ShippedLines)
        : ((raw as ShippedLines | undefined) ?? {});
    const known = parcel.code in shipped;
    shipped[parcel.code] = parcel.lines;
    const complete =
      this.allLeft(shipped) && (order.status === 'processing' || order.status === 'on-hold');
    if (known && !complete) return;
    await this.rest.put(this.orderPath, {
      ...(complete && { status: 'completed' }),
      meta_data: [{ key: PARCELS_META, value: JSON.stringify(shipped) }],
    });
  }

  private allLeft(shipped: ShippedLines): boolean {
    const left = new Map<string, number>();
    for (const lines of Object.values(shipped))
      for (const l of lines) left.set(l.storeLineId, (left.get(l.storeLineId) ?? 0) + l.quantity);
    return this.target.lines.every((l) => (left.get(l.storeLineId) ?? 0) >= l.quantity);
  }

  async delivered(deliveredAt: string): Promise<void> {
    await this.customerNoteOnce(`Your order was delivered on ${deliveredAt.slice(0, 10)}.`);
  }

  /** A private note for the shop (kept once). */
  async note(line: string): Promise<void> {
    await this.noteOnce(`${NOTE_MARK} ${line}`, false);
  }

  private customerNoteOnce(text: string): Promise<void> {
    return this.noteOnce(text, true);
  }

  private async noteOnce(text: string, customer: boolean): Promise<void> {
    const notes = await this.rest.get<WooNote[]>(`${this.orderPath}/notes?per_page=100`);
    if (notes.some((n) => n.note === text)) return;
    await this.rest.post(`${this.orderPath}/notes`, { note: text, customer_note: customer });
  }
}
