/**
 * Which supplier news belongs to the order's parcels rather than to the order as one parcel: an
 * ORDERSPLIT (a claim, kept to be looked up), news of a parcel of a split order, and news under a
 * code the order does not know (a split it has not heard of: kept as a claim, never taken as the
 * order's own status, which would end the order with one parcel's delivery).
 */

import type { SupplierNews } from '../contract.js';
import type { Parcels } from '../parcels.js';
import { has } from '../../durable/patches.js';
import type { PatchId } from '../../durable/versions.js';

/** News kinds that come from the supplier's webhooks (signed, but replayable and forgeable). */
export const PUSHED_KINDS: ReadonlySet<SupplierNews['kind']> = new Set([
  'order',
  'logistics',
  'makeup',
  'connected',
]);

/** News kinds that speak of one supplier order's status or tracking. */
const PARCEL_KINDS: ReadonlySet<SupplierNews['kind']> = new Set(['order', 'logistics', 'status']);

/** Takes `news` into the parcels and returns true, or returns false for the order's own news. */
export function heardByParcels(
  parcels: Parcels,
  news: SupplierNews,
  ownCode: string | undefined,
  patch: PatchId,
): boolean {
  if (news.kind === 'split' && news.split !== undefined) {
    parcels.claimed(news.split);
    return true;
  }
  const code = news.svcOrderId;
  if (code === undefined || !PARCEL_KINDS.has(news.kind)) return false;
  if (parcels.split && parcels.heard(code, news, PUSHED_KINDS.has(news.kind))) return true;
  const foreign = ownCode !== undefined && code !== ownCode && !parcels.knows(code);
  // Asked only where such news arrives: recorded histories never had one diverted.
  if (!foreign || !has(patch)) return false;
  parcels.claimed({ codes: [code], held: news });
  return true;
}
