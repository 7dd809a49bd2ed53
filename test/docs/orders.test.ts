/**
 * docs/orders.md shows an example for each choice: every one, merged into the example order it
 * names, is an order dropflow accepts.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

import { parseOrder } from '../../src/order/orderInput.js';

const root = new URL('../../', import.meta.url);

async function blocks(): Promise<{ base: string; json: string }[]> {
  const text = await readFile(new URL('docs/orders.md', root), 'utf8');
  return [...text.matchAll(/```json base=(\S+)\n([\s\S]*?)```/g)].map((m) => ({
    base: m[1]!,
    json: m[2]!,
  }));
}

describe('docs/orders.md', () => {
  it('has an example per choice, and each is an order dropflow accepts', async () => {
    const found = await blocks();
    expect(found.length).toBeGreaterThanOrEqual(9);
    for (const { base, json } of found) {
      const example = JSON.parse(json) as Record<string, unknown>;
      const order =
        base === 'none'
          ? example
          : {
              ...(JSON.parse(await readFile(new URL(`examples/${base}`, root), 'utf8')) as Record<
                string,
                unknown
              >),
              fulfillment: example,
            };
      const parsed = parseOrder(order);
      expect(parsed.ok ? [] : parsed.issues, json).toEqual([]);
    }
  });
});
