/**
 * The chaos run's orders: flows A, B and C in turn, shaped like examples/*.json, each with an
 * orderNumber of its own derived from the seed and the run (and, for flow A, its own label).
 */
import { readFile } from 'node:fs/promises';

export const FLOWS = ['A', 'B', 'C'] as const;
export type Flow = (typeof FLOWS)[number];

export interface ChaosOrder {
  orderNumber: string;
  flow: Flow;
  /** The createOrderV3 body plus `fulfillment`, as `dropflow submit` takes it. */
  body: Record<string, unknown>;
}

const EXAMPLE_FILES: Record<Flow, string> = {
  A: 'order-flow-a.json',
  B: 'order-flow-b.json',
  C: 'order-flow-c.json',
};

async function example(flow: Flow): Promise<Record<string, unknown>> {
  const url = new URL(`../../../examples/${EXAMPLE_FILES[flow]}`, import.meta.url);
  return JSON.parse(await readFile(url, 'utf8')) as Record<string, unknown>;
}

/** `CHAOS-<seed>-<run>-<n><flow>`: unique per run, readable in the Temporal UI. */
export function orderNumberFor(seed: number, runId: string, index: number, flow: Flow): string {
  return `CHAOS-${seed}-${runId}-${String(index + 1).padStart(3, '0')}${flow}`;
}

/**
 * The orders of a run. `supplierLagSeconds` tells each order how long the sandbox's lagging view
 * may trail it (the run's batch lag with a margin), as an operator would for their supplier.
 */
export async function chaosOrders(
  count: number,
  seed: number,
  runId: string,
  supplierLagSeconds: number,
): Promise<ChaosOrder[]> {
  const shapes = {} as Record<Flow, Record<string, unknown>>;
  for (const flow of FLOWS) shapes[flow] = await example(flow);
  const out: ChaosOrder[] = [];
  for (let i = 0; i < count; i += 1) {
    const flow = FLOWS[i % FLOWS.length]!;
    const orderNumber = orderNumberFor(seed, runId, i, flow);
    // A deep copy: nested objects of one order are never shared with another.
    const body = structuredClone(shapes[flow]);
    body['orderNumber'] = orderNumber;
    body['fulfillment'] = {
      ...(body['fulfillment'] as Record<string, unknown> | undefined),
      supplierLagSeconds,
    };
    if (flow === 'A') withOwnLabel(body, orderNumber, i);
    out.push({ orderNumber, flow, body });
  }
  return out;
}

/** A waybill of the order's own: tracking numbers and file names are per parcel. */
function withOwnLabel(body: Record<string, unknown>, orderNumber: string, index: number): void {
  const fulfillment = body['fulfillment'] as Record<string, unknown> | undefined;
  const waybill = fulfillment?.['waybill'] as Record<string, unknown> | undefined;
  if (waybill === undefined) return;
  waybill['trackNumber'] = `SF${String(2_000_000_000 + index)}`;
  waybill['filename'] = `label-${orderNumber}.pdf`;
}
