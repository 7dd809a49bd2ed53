/**
 * The parcels of an order's store events, in the store order's lines. An `order.shipped` carries
 * its parcel; one of an order started before parcels existed carries none and stands for one
 * parcel with all the order's lines. A supplier line (`vid`) is the store line the order's store
 * reference maps it from; a vid on several store lines fills them in turn.
 */
import type { Parcel, StoreEvent } from './contract.js';
import type { StoreOrderRef } from '../store/contract.js';
import type { StoreParcel } from '../store/parcel.js';

/** A parcel as the store events carry it (src/storeEvents/contract.ts). */
export type EventParcel = Parcel;

function storeLines(ref: StoreOrderRef, parcel: EventParcel): StoreParcel['lines'] {
  const room = new Map(ref.lines.map((l) => [l.storeLineId, l.quantity]));
  const out = new Map<string, number>();
  for (const line of parcel.lines) {
    let left = line.quantity;
    const candidates =
      line.storeLineId !== undefined
        ? [line.storeLineId]
        : ref.lines.filter((l) => l.vid === line.vid).map((l) => l.storeLineId);
    for (const id of candidates) {
      if (left <= 0) break;
      const take = line.storeLineId !== undefined ? left : Math.min(left, room.get(id) ?? 0);
      if (take <= 0) continue;
      out.set(id, (out.get(id) ?? 0) + take);
      room.set(id, (room.get(id) ?? 0) - take);
      left -= take;
    }
  }
  return [...out].map(([storeLineId, quantity]) => ({ storeLineId, quantity }));
}

/** The whole order as one parcel (events of orders from before parcels). */
function wholeOrder(ref: StoreOrderRef, code: string, tracking: Partial<StoreParcel>): StoreParcel {
  return {
    code,
    lines: ref.lines.map((l) => ({ storeLineId: l.storeLineId, quantity: l.quantity })),
    ...tracking,
  };
}

export function toStoreParcel(ref: StoreOrderRef, p: EventParcel, carrier?: string): StoreParcel {
  const company = p.trackingProvider ?? carrier ?? p.logisticName;
  return {
    code: p.code,
    lines: storeLines(ref, p),
    ...(p.trackNumber !== undefined && { trackNumber: p.trackNumber }),
    ...(p.trackingUrl !== undefined && { trackingUrl: p.trackingUrl }),
    ...(company !== undefined && { company }),
  };
}

type Of<T extends StoreEvent['type']> = Extract<StoreEvent, { type: T }>;

export function shippedParcel(ref: StoreOrderRef, event: Of<'order.shipped'>): StoreParcel {
  const data = event.data;
  if (data.parcel !== undefined) return toStoreParcel(ref, data.parcel, data.carrier);
  const company = data.carrier ?? data.logisticName;
  return wholeOrder(ref, event.orderNumber, {
    ...(data.trackNumber !== undefined && { trackNumber: data.trackNumber }),
    ...(data.trackingUrl !== undefined && { trackingUrl: data.trackingUrl }),
    ...(company !== undefined && { company }),
  });
}

export function deliveredParcels(ref: StoreOrderRef, event: Of<'order.delivered'>): StoreParcel[] {
  const data = event.data;
  if (data.parcels !== undefined && data.parcels.length > 0)
    return data.parcels.map((p) => toStoreParcel(ref, p));
  return [
    wholeOrder(
      ref,
      event.orderNumber,
      data.trackNumber === undefined ? {} : { trackNumber: data.trackNumber },
    ),
  ];
}
