/**
 * Before creating: the logistics line (named, cheapest or fastest), the flow-A storage, and the
 * createOrderV3 body that follows from them.
 */
import { Stage, usesPlatformLogistics } from '../../common/contracts.js';
import type { CreateOrderRequest } from '../../../supplier/api/orders.js';
import type { Activities } from '../activities.js';
import type { FrozenOrderV1 } from '../order.js';
import { needsAttention, waitAt } from './wait.js';

export async function planOrder(o: FrozenOrderV1, acts: Activities): Promise<CreateOrderRequest> {
  const f = o.input.fulfillment;
  const body = { ...o.input.order };
  if (f.sandboxOrder) body.isSandbox = 1;
  if (f.flow === 'C') {
    body.orderFlow = 2;
  }
  if (usesPlatformLogistics(f)) {
    const storage =
      f.storage ??
      (body.storageId
        ? { mode: 'given' as const, storageId: body.storageId }
        : { mode: 'supplier' as const });
    if (storage.mode === 'supplier') {
      body.shopLogisticsType = 3;
      delete body.storageId;
    } else {
      body.shopLogisticsType = 1;
      body.storageId =
        storage.mode === 'given' ? storage.storageId : await storageWithStock(o, acts);
    }
  } else {
    body.shopLogisticsType = 2;
    delete body.storageId;
  }
  const logisticName = body.logisticName ?? (await pickLogistics(o, acts));
  o.status.logisticName = logisticName;
  return { ...body, logisticName };
}

/** Catalogue variants of the order's lines (flow C: through the given connections). */
function catalogueLines(o: FrozenOrderV1): { vid: string; quantity: number }[] {
  const links = new Map(
    o.input.fulfillment.connections.map((c) => [c.storeVariantId, c.svcVariantId]),
  );
  return o.input.order.products.map((p) => ({
    vid: links.get(p.vid ?? '') ?? p.vid ?? p.sku ?? '',
    quantity: Number(p.quantity),
  }));
}

async function pickLogistics(o: FrozenOrderV1, acts: Activities): Promise<string> {
  const policy = o.input.fulfillment.logistics.policy;
  for (;;) {
    try {
      const quotes = await acts.supplier.freightCalculate({
        from: o.input.order.fromCountryCode,
        to: o.input.order.shippingCountryCode,
        ...(o.input.order.shippingZip !== undefined && { zip: o.input.order.shippingZip }),
        products: catalogueLines(o),
      });
      const best = [...quotes].sort((a, b) =>
        policy === 'fastest'
          ? (a.maxDays ?? Infinity) - (b.maxDays ?? Infinity) || a.price - b.price
          : a.price - b.price,
      )[0];
      if (best) {
        o.note(`logistics: ${best.logisticName} (${policy}, ${best.price} USD)`);
        return best.logisticName;
      }
      o.status.error = { step: 'freightCalculate', message: 'no logistics line serves this route' };
      const action = await waitAt(
        o,
        Stage.NEEDS_ATTENTION,
        'resume to ask for freight again, or cancel',
        ['resume'],
      );
      if (action) o.answer(action, 'asking for freight again');
    } catch (err) {
      await needsAttention(o, 'freightCalculate', err);
    }
  }
}

/** A storage in the origin country with enough units of every line (flow A, storage fromStock). */
async function storageWithStock(o: FrozenOrderV1, acts: Activities): Promise<string> {
  for (;;) {
    try {
      let candidates: Map<string, number> | undefined;
      for (const line of catalogueLines(o)) {
        const units = await acts.supplier.queryInventoryByVid({
          vid: line.vid,
          countryCode: o.input.order.fromCountryCode,
        });
        const enough = new Map(Object.entries(units).filter(([, n]) => n >= line.quantity));
        candidates = candidates
          ? new Map([...candidates].filter(([id]) => enough.has(id)))
          : enough;
      }
      const storageId = [...(candidates?.keys() ?? [])].sort()[0];
      if (storageId !== undefined) {
        o.note(`storage: ${storageId} (has stock for every line)`);
        return storageId;
      }
      o.status.error = {
        step: 'queryInventoryByVid',
        message: 'no storage has stock for every line',
      };
      const action = await waitAt(
        o,
        Stage.NEEDS_ATTENTION,
        'resume to check stock again, or cancel',
        ['resume'],
      );
      if (action) o.answer(action, 'checking stock again');
    } catch (err) {
      await needsAttention(o, 'queryInventoryByVid', err);
    }
  }
}
