/** The margin rule on its own: how an order states it, and what a check and a rescue decide. */
import { describe, expect, it } from 'vitest';
import { parseOrder } from '../../src/order/orderInput.js';
import { loadConfig } from '../../src/config/environment.js';
import { checkMargin, checkText, rescueByLogistics, saleOf } from '../../src/terms/margin.js';
import { orderNumber, usOrder } from '../supplier/orderHelpers.js';

function submit(margin: unknown, salePrice?: unknown, marginDefault?: unknown) {
  const base = usOrder({ orderNumber: orderNumber('margin') });
  return parseOrder(
    {
      ...base,
      products: base.products.map((p) => ({
        ...p,
        ...(salePrice !== undefined && { salePrice }),
      })),
      fulfillment: { flow: 'B', ...(margin !== undefined && { margin }) },
    },
    marginDefault === undefined ? {} : { marginDefault: marginDefault as never },
  );
}

const issues = (parsed: ReturnType<typeof parseOrder>) => (parsed.ok ? [] : parsed.issues);

describe('the margin rule of an order', () => {
  it('is refused with the field and the reason when it is wrong', () => {
    expect(issues(submit({ minPercent: 120 }, 30))).toEqual([
      {
        field: 'fulfillment.margin.minPercent',
        rule: 'must be below 100 (a margin is a share of the sale)',
      },
    ]);
    expect(issues(submit({ minPercent: 20, minUsd: 3 }, 30))).toEqual([
      {
        field: 'fulfillment.margin',
        rule: 'must name exactly one of minPercent, minUsd, maxLandedCostUsd',
      },
    ]);
    expect(issues(submit({ maxCost: 3 }, 30))[0]?.field).toBe('fulfillment.margin');
    expect(issues(submit({ minUsd: 5 }))).toEqual([
      {
        field: 'products[0].salePrice',
        rule: 'is required when fulfillment.margin sets minPercent or minUsd',
      },
    ]);
    expect(issues(submit(undefined, -1))).toEqual([
      { field: 'products[0].salePrice', rule: 'must be at least 0' },
    ]);
  });

  it('keeps salePrice on the lines and the rule in the fulfilment choices', () => {
    const parsed = submit({ minPercent: 25 }, 19.5);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.input.fulfillment.margin).toEqual({ minPercent: 25 });
    expect(parsed.input.order.products[0]?.salePrice).toBe(19.5);
    expect(saleOf(parsed.input.order.products)).toBe(39);
  });

  it("takes the store's default rule only where the order names none and it can be checked", () => {
    const fallback = { minPercent: 10 };
    const withSale = submit(undefined, 20, fallback);
    expect(withSale.ok && withSale.input.fulfillment.margin).toEqual(fallback);
    const withoutSale = submit(undefined, undefined, fallback);
    expect(withoutSale.ok && withoutSale.input.fulfillment.margin).toBeUndefined();
    const own = submit({ maxLandedCostUsd: 50 }, undefined, fallback);
    expect(own.ok && own.input.fulfillment.margin).toEqual({ maxLandedCostUsd: 50 });
  });

  it("the store's default comes from MARGIN_RULE, refused with the reason when wrong", () => {
    expect(loadConfig({ MARGIN_RULE: '{"minUsd":4}' }).MARGIN_RULE).toEqual({ minUsd: 4 });
    expect(() => loadConfig({ MARGIN_RULE: '{"minPercent":150}' })).toThrow(
      'MARGIN_RULE.minPercent: must be below 100',
    );
    expect(() => loadConfig({ MARGIN_RULE: 'twenty' })).toThrow('MARGIN_RULE: must be JSON');
  });

  it('an order without a rule parses exactly as before', () => {
    const parsed = submit(undefined);
    expect(parsed.ok && 'margin' in parsed.input.fulfillment).toBe(false);
    expect(parsed.ok && 'salePrice' in parsed.input.order.products[0]!).toBe(false);
  });
});

describe('a margin check', () => {
  const terms = { rule: { minPercent: 30 }, sale: 40, costAtCreate: 24 };

  it('shows cost at create, cost now, margin and rule', () => {
    const check = checkMargin(terms, 30);
    expect(check).toMatchObject({ holds: false, marginUsd: 10, marginPercent: 25 });
    expect(checkText(check)).toBe(
      'landed cost 30.00 USD now (24.00 USD at create), margin 10.00 USD (25 %) of a sale of 40.00 USD; rule: margin at least 30 %',
    );
    expect(checkMargin(terms, 28).holds).toBe(true);
    expect(checkMargin({ rule: { maxLandedCostUsd: 20 } }, 20).holds).toBe(true);
    expect(checkMargin({ rule: { minUsd: 5 }, sale: 30 }, 25.01).holds).toBe(false);
  });

  it('is rescued by the cheapest other line that keeps it and delivers no later', () => {
    const failed = checkMargin(terms, 30); // postage 10 of it
    const offers = [
      { id: '1', logisticsName: 'Current', postage: 10, arrivalTime: '6-10' },
      { id: '2', logisticsName: 'Slow', postage: 2, arrivalTime: '12-20' },
      { id: '3', logisticsName: 'Fast', postage: 7, arrivalTime: '3-5' },
      { id: '4', logisticsName: 'Same', postage: 6, arrivalTime: '5-10' },
    ];
    const rescue = rescueByLogistics(failed, 'current', offers);
    expect(rescue?.offer.logisticsName).toBe('Same');
    expect(rescue?.savedUsd).toBe(4);
    expect(rescue?.check).toMatchObject({ costNow: 26, holds: true });
    // Only the slower line would keep the rule: no rescue.
    expect(rescueByLogistics(checkMargin(terms, 35), 'Current', offers)).toBeUndefined();
  });
});
