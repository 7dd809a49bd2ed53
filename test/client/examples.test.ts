/** examples/ holds one valid order per flow (docs/architecture.md §5.1): each passes parseOrder. */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

import { flowLabel, parseOrder } from '../../src/order/orderInput.js';

const examples = [
  { file: 'order-flow-a.json', flow: 'A', label: 'A' },
  { file: 'order-flow-b.json', flow: 'B', label: 'B' },
  { file: 'order-flow-c.json', flow: 'C', label: 'C+B' },
] as const;

async function readExample(file: string): Promise<unknown> {
  return JSON.parse(await readFile(new URL(`../../examples/${file}`, import.meta.url), 'utf8'));
}

describe('examples/', () => {
  it.each(examples)('$file is a valid flow $flow order', async ({ file, flow, label }) => {
    const parsed = parseOrder(await readExample(file));
    expect(parsed.ok ? [] : parsed.issues).toEqual([]);
    if (!parsed.ok) return;
    expect(parsed.input.fulfillment.flow).toBe(flow);
    expect(flowLabel(parsed.input.fulfillment)).toBe(label);
    expect(parsed.input.order.orderNumber).toMatch(new RegExp(`^EXAMPLE-${flow}-`));
  });

  it('flow A ships from the seed storage with its waybill; flow C brings its connections', async () => {
    const a = parseOrder(await readExample('order-flow-a.json'));
    const c = parseOrder(await readExample('order-flow-c.json'));
    if (!a.ok || !c.ok) throw new Error('examples must parse');
    expect(a.input.order).toMatchObject({ shopLogisticsType: 1, storageId: 'ST-CN-SZ' });
    expect(a.input.fulfillment.storage).toEqual({ mode: 'given', storageId: 'ST-CN-SZ' });
    expect(a.input.fulfillment.waybill?.carrier).toBe('SF Express');
    expect(c.input.order.orderFlow).toBe(2);
    const [line] = c.input.order.products;
    expect(c.input.fulfillment.connections).toEqual([
      expect.objectContaining({ storeProductId: line?.storeProductId, storeVariantId: line?.vid }),
    ]);
  });
});
