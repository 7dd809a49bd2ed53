/**
 * Before anything is bought, for an order from a store connection (docs/store-shopify.md): the
 * store's hold window (ON_HOLD), in which a cancellation or an edit in the store comes first; then
 * each store line resolved to a supplier variant — the store's explicit mapping, else the
 * supplier's connection of its store product, else the supplier's own variant SKU. An order whose
 * every line is connected is created in the store flow (flow C). A line that maps to none or to several waits at AWAITING_MAPPING,
 * named with the command that mends it, and goes on by itself once mapped (`storeSkuMapped`, or
 * the periodic look).
 */
import { workflowInfo } from '@temporalio/workflow';
import { Stage } from '../contract.js';
import { durationMs } from '../../terms/sla.js';
import type { Activities } from '../../durable/activityProxies.js';
import { supplierCall } from '../../durable/supplierStep.js';
import type { Order } from '../order.js';
import type { PendingAction } from '../operatorActions.js';
import type { StoreEditInput } from '../storeSide.js';
import type { StoreOrderLine } from '../../store/contract.js';
import type { ConnectedVariant } from '../../store/intake/connectionActivities.js';
import { Patch } from '../../durable/versions.js';
import { has } from '../../durable/patches.js';

/** The bound of a wait for a mapping: the order looks at the mappings again after it. */
export const MAPPING_RECHECK_MS = 15 * 60_000;

export async function storeIntake(o: Order, acts: Activities): Promise<void> {
  await holdWindow(o);
  await resolveLines(o, acts);
}

async function holdWindow(o: Order): Promise<void> {
  const holdFor = o.current.input.store?.holdFor;
  const ms = holdFor === undefined ? undefined : durationMs(holdFor);
  if (ms === undefined) return;
  const until = workflowInfo().startTime.getTime() + ms;
  const untilText = new Date(until).toISOString();
  for (;;) {
    const left = until - new Date().getTime();
    if (left <= 0) break;
    const action = await o.waits.at(
      Stage.ON_HOLD,
      `the store's hold window (${holdFor}) until ${untilText}: a cancellation or edit in the store comes first`,
      ['amend'],
      { timeout: left },
    );
    if (action !== undefined) takeEdit(o, action);
  }
  o.view.enter(Stage.RECEIVED, `the hold window (${holdFor}) is over`);
}

/** An amend taken while held or waiting for a mapping: the store's lines follow a store edit. */
function takeEdit(o: Order, action: PendingAction): void {
  const fields = o.waits.amended(action);
  if (fields === undefined) return; // answered as refused
  const lines = (action.input as Partial<StoreEditInput> | undefined)?.storeLines;
  if (lines !== undefined) o.current.storeLinesEdited(lines);
  o.actions.answer(action, `amended ${fields.join(', ')}`);
}

/**
 * The lines without an explicit mapping whose store variant the supplier has connected to a
 * catalogue variant, by store line id. Only those with the store product's image can go in the
 * store flow; the others still order the connected catalogue variant.
 */
async function connectedLines(
  o: Order,
  acts: Activities,
  pending: readonly StoreOrderLine[],
  mapped: Readonly<Record<string, string>>,
): Promise<Map<string, ConnectedVariant>> {
  const found = new Map<string, ConnectedVariant>();
  const asked = pending.filter(
    (l) =>
      mapped[mappingKey(l)] === undefined &&
      l.storeProductId !== undefined &&
      l.storeVariantId !== undefined,
  );
  if (asked.length === 0 || !has(Patch.StoreConnectedFlow)) return found;
  const { value: variants } = await supplierCall(o.waits, {
    name: 'listConnections',
    send: () => acts.supplier.connectedStoreVariants(asked.map((l) => l.storeProductId!)),
  });
  for (const line of asked) {
    const c = variants.find(
      (v) => v.storeProductId === line.storeProductId && v.storeVariantId === line.storeVariantId,
    );
    if (c !== undefined) found.set(line.storeLineId, c);
  }
  return found;
}

/** The key a line is mapped by: its SKU, or its store variant when it has none. */
export function mappingKey(line: StoreOrderLine): string {
  return line.sku ?? `variant:${line.storeVariantId ?? line.storeLineId}`;
}

async function resolveLines(o: Order, acts: Activities): Promise<void> {
  const store = o.current.input.store!;
  for (;;) {
    const pending = o.current.input.store!.lines.filter((l) => l.vid === '');
    if (pending.length === 0) return;
    const mapped = await acts.orchestration.storeMappedVids({
      connection: store.connection,
      skus: pending.map(mappingKey),
    });
    const connected = await connectedLines(o, acts, pending, mapped);
    const inStoreFlow =
      connected.size === store.lines.length &&
      [...connected.values()].every((c) => c.image !== undefined);
    if (inStoreFlow && o.current.input.fulfillment.flow !== 'C') {
      o.storeFlowChosen(connected);
      const note = `every store product is connected at the supplier: store flow (${store.orderName})`;
      if (o.view.stage === Stage.AWAITING_MAPPING) o.view.enter(Stage.RECEIVED, note);
      else o.view.note(note);
      return;
    }
    const vids = new Map<string, string>();
    const problems: string[] = [];
    for (const line of pending) {
      const key = mappingKey(line);
      const explicit = mapped[key] ?? connected.get(line.storeLineId)?.svcVariantId;
      if (explicit !== undefined) {
        vids.set(line.storeLineId, explicit);
        continue;
      }
      if (line.sku === undefined) {
        problems.push(`store line ${line.storeLineId} has no SKU (map ${key})`);
        continue;
      }
      const sku = line.sku;
      const { value: found } = await supplierCall(o.waits, {
        name: 'variantsBySku',
        send: () => acts.supplier.variantsBySku(sku),
      });
      if (found.length === 1) vids.set(line.storeLineId, found[0]!);
      else if (found.length === 0) problems.push(`SKU ${sku} maps to no supplier variant`);
      else
        problems.push(`SKU ${sku} matches ${found.length} supplier variants (${found.join(', ')})`);
    }
    o.current.storeLinesResolved(vids);
    if (problems.length === 0) {
      const note = `store lines mapped to supplier variants (${store.orderName})`;
      if (o.view.stage === Stage.AWAITING_MAPPING) o.view.enter(Stage.RECEIVED, note);
      else o.view.note(note);
      return;
    }
    const seen = o.storeSide.mappingVersion;
    const action = await o.waits.at(
      Stage.AWAITING_MAPPING,
      `${problems.join('; ')}: dropflow store map ${store.connection} <sku> <vid> (the order goes on by itself), or cancel`,
      ['amend', 'resume'],
      { until: () => o.storeSide.mappingVersion !== seen, timeout: MAPPING_RECHECK_MS },
    );
    if (action?.kind === 'amend') takeEdit(o, action);
    else if (action !== undefined) o.actions.answer(action, 'looking at the mappings again');
  }
}
