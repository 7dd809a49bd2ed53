/**
 * Split orders in a chaos run (`--splits <fraction>`): the sandbox splits some orders, at their
 * payment or, once paid, at once (one parcel per line); at the end, every new code must be one of
 * its order's parcels ("parcels lost" otherwise) and no order may have been delivered before its
 * last parcel was ("delivered too early").
 */
import { ParcelStage, Stage, type OrderStatus } from 'dropflow/contracts/order';
import type { Sandbox } from '../sandbox/sandbox.js';
import { isPaid } from '../sandbox/orderBook.js';
import { linePerPart, splitOrder } from '../sandbox/split.js';
import type { SandboxOrder } from '../sandbox/state.js';
import type { Random } from './random.js';
import type { ChaosOrder } from './orders.js';

/** The orders to split: each with probability `fraction`, if it has more than one line. */
export function ordersToSplit(
  orders: readonly ChaosOrder[],
  fraction: number,
  random: Random,
): Set<string> {
  const chosen = new Set<string>();
  for (const o of orders) {
    const lines = (o.body['products'] as unknown[] | undefined)?.length ?? 0;
    if (random.next() < fraction && lines > 1) chosen.add(o.orderNumber);
  }
  return chosen;
}

/**
 * Splits each chosen order at the sandbox as soon as it has it: at its payment when not paid yet,
 * at once when paid and unshipped. Polls until every chosen order is split or past splitting, or
 * `stopped`. Returns the order numbers split.
 */
export async function splitOrders(
  sandbox: Sandbox,
  openId: string,
  chosen: ReadonlySet<string>,
  stopped: () => boolean,
): Promise<Set<string>> {
  const done = new Set<string>();
  const left = new Set(chosen);
  while (left.size > 0 && !stopped()) {
    for (const order of Object.values(sandbox.state.orders)) {
      if (order.openId !== openId || !left.has(order.orderNumber) || order.splitFrom) continue;
      if (order.awaitingConnection === true) continue;
      if (!isPaid(order)) {
        order.pendingSplit ??= linePerPart(order);
      } else if (order.splitInto === undefined && order.pendingSplit === undefined) {
        splitOrder(sandbox, order, linePerPart(order));
      }
      if (order.splitInto !== undefined || (isPaid(order) && order.status !== 'UNSHIPPED')) {
        left.delete(order.orderNumber);
        if (order.splitInto !== undefined) done.add(order.orderNumber);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return done;
}

export interface ParcelFinding {
  counter: 'parcelsLost' | 'deliveredTooEarly';
  subject: string;
  detail: string;
}

const ms = (iso: string | undefined): number | undefined =>
  iso === undefined ? undefined : Date.parse(iso);

/** What the parcels of one order say against the sandbox's split orders of its number. */
export function parcelFindings(
  orderNumber: string,
  status: OrderStatus | undefined,
  sandboxOrders: readonly SandboxOrder[],
): ParcelFinding[] {
  const children = sandboxOrders.filter(
    (s) => s.orderNumber === orderNumber && s.splitFrom !== undefined,
  );
  if (children.length === 0) return [];
  const out: ParcelFinding[] = [];
  const followed = new Set((status?.parcels ?? []).map((p) => p.code));
  for (const c of children) {
    if (!followed.has(c.svcOrderId) && c.status !== 'CANCELLED') {
      out.push({
        counter: 'parcelsLost',
        subject: orderNumber,
        detail: `${c.svcOrderId} (${c.status}) is none of the order's parcels`,
      });
    }
  }
  const deliveredAt = ms(status?.timeline.find((t) => t.stage === Stage.DELIVERED)?.at);
  if (deliveredAt !== undefined) {
    for (const c of children) {
      const arrived = c.deliveredAt;
      if (c.status === 'CANCELLED' || c.splitInto !== undefined) continue;
      if (arrived === undefined || arrived > deliveredAt) {
        out.push({
          counter: 'deliveredTooEarly',
          subject: orderNumber,
          detail: `DELIVERED at ${new Date(deliveredAt).toISOString()}, parcel ${c.svcOrderId} ${arrived === undefined ? `still ${c.status}` : `delivered at ${new Date(arrived).toISOString()}`}`,
        });
      }
    }
    const open = (status?.parcels ?? []).filter(
      (p) => p.stage === ParcelStage.AWAITING_SHIPMENT || p.stage === ParcelStage.SHIPPED,
    );
    for (const p of open) {
      out.push({
        counter: 'deliveredTooEarly',
        subject: orderNumber,
        detail: `DELIVERED with parcel ${p.code} ${p.stage}`,
      });
    }
  }
  return out;
}

/** A split order's standing at the supplier: its parcels' statuses, the cancelled ones aside. */
export function splitStatus(parent: SandboxOrder, all: readonly SandboxOrder[]): string {
  const kids = all.filter((s) => s.splitFrom === parent.svcOrderId && s.status !== 'CANCELLED');
  return kids.length > 0 && kids.every((k) => k.status === 'DELIVERED') ? 'DELIVERED' : 'UNSHIPPED';
}
