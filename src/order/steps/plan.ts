/**
 * Before creating: the logistics line (named, cheapest or fastest), the flow-A storage, and the
 * createOrderV3 body that follows from them.
 */
import { usesPlatformLogistics } from '../orderInput.js';
import { OrderFlow, ShopLogisticsType } from '../../supplier/api/constants.js';
import type { CreateOrderRequest } from '../../supplier/api/orders.js';
import type { Activities } from '../../durable/activityProxies.js';
import type { Order } from '../order.js';
import { supplierCall } from '../../durable/supplierStep.js';

export async function planOrder(o: Order, acts: Activities): Promise<CreateOrderRequest> {
  const f = o.current.input.fulfillment;
  const body = { ...o.current.input.order };
  if (f.sandboxOrder) body.isSandbox = 1;
  if (f.flow === 'C') {
    body.orderFlow = OrderFlow.Store;
  }
  if (usesPlatformLogistics(f)) {
    const storage =
      f.storage ??
      (body.storageId
        ? { mode: 'given' as const, storageId: body.storageId }
        : { mode: 'supplier' as const });
    if (storage.mode === 'supplier') {
      body.shopLogisticsType = ShopLogisticsType.PlatformSupplierStorage;
      delete body.storageId;
    } else {
      body.shopLogisticsType = ShopLogisticsType.PlatformFromStorage;
      body.storageId =
        storage.mode === 'given' ? storage.storageId : await storageWithStock(o, acts);
    }
  } else {
    body.shopLogisticsType = ShopLogisticsType.Supplier;
    delete body.storageId;
  }
  const logisticName = body.logisticName ?? (await pickLogistics(o, acts));
  o.view.record({ logisticName });
  return { ...body, logisticName };
}

/** Catalogue variants of the order's lines (flow C: through the given connections). */
function catalogueLines(o: Order): { vid: string; quantity: number }[] {
  const links = new Map(
    o.current.input.fulfillment.connections.map((c) => [c.storeVariantId, c.svcVariantId]),
  );
  return o.current.input.order.products.map((p) => ({
    vid: links.get(p.vid ?? '') ?? p.vid ?? p.sku ?? '',
    quantity: Number(p.quantity),
  }));
}

async function pickLogistics(o: Order, acts: Activities): Promise<string> {
  const policy = o.current.input.fulfillment.logistics.policy;
  for (;;) {
    const { value: quotes } = await supplierCall(o.waits, {
      name: 'freightCalculate',
      send: () =>
        acts.supplier.freightCalculate({
          from: o.current.input.order.fromCountryCode,
          to: o.current.input.order.shippingCountryCode,
          ...(o.current.input.order.shippingZip !== undefined && {
            zip: o.current.input.order.shippingZip,
          }),
          products: catalogueLines(o),
        }),
    });
    const best = [...quotes].sort((a, b) =>
      policy === 'fastest'
        ? (a.maxDays ?? Infinity) - (b.maxDays ?? Infinity) || a.price - b.price
        : a.price - b.price,
    )[0];
    if (best) {
      o.view.note(`logistics: ${best.logisticName} (${policy}, ${best.price} USD)`);
      o.deadlines.deliveryQuoted(best.maxDays);
      return best.logisticName;
    }
    await o.waits.needsAttention(
      { step: 'freightCalculate', message: 'no logistics line serves this route' },
      'resume to ask for freight again, or cancel',
    );
  }
}

/** A storage in the origin country with enough units of every line (flow A, storage fromStock). */
async function storageWithStock(o: Order, acts: Activities): Promise<string> {
  for (;;) {
    let candidates: Map<string, number> | undefined;
    for (const line of catalogueLines(o)) {
      const { value: units } = await supplierCall(o.waits, {
        name: 'queryInventoryByVid',
        send: () =>
          acts.supplier.queryInventoryByVid({
            vid: line.vid,
            countryCode: o.current.input.order.fromCountryCode,
          }),
      });
      const enough = new Map(Object.entries(units).filter(([, n]) => n >= line.quantity));
      candidates = candidates ? new Map([...candidates].filter(([id]) => enough.has(id))) : enough;
    }
    const storageId = [...(candidates?.keys() ?? [])].sort()[0];
    if (storageId !== undefined) {
      o.view.note(`storage: ${storageId} (has stock for every line)`);
      return storageId;
    }
    await o.waits.needsAttention(
      { step: 'queryInventoryByVid', message: 'no storage has stock for every line' },
      'resume to check stock again, or cancel',
    );
  }
}
