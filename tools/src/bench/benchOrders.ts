/**
 * The bench's orders: flow B (service logistics, a named line, paid from the balance) shaped like
 * examples/order-flow-b.json, each with an orderNumber of its own.
 */
import { readFile } from 'node:fs/promises';

export interface BenchOrder {
  orderNumber: string;
  /** The createOrderV3 body plus `fulfillment`, as `dropflow submit` takes it. */
  body: Record<string, unknown>;
}

const EXAMPLE = new URL('../../../examples/order-flow-b.json', import.meta.url);

/** `<prefix>-0001` …: readable in the Temporal UI, unique per phase. */
export function benchOrderNumber(prefix: string, index: number): string {
  return `${prefix}-${String(index + 1).padStart(4, '0')}`;
}

export async function benchOrders(count: number, prefix: string): Promise<BenchOrder[]> {
  const shape = JSON.parse(await readFile(EXAMPLE, 'utf8')) as Record<string, unknown>;
  return Array.from({ length: count }, (_, i) => {
    const orderNumber = benchOrderNumber(prefix, i);
    const body = structuredClone(shape);
    body['orderNumber'] = orderNumber;
    return { orderNumber, body };
  });
}
