/**
 * The margin rule of an order (docs/margin-guard.md): what the customer paid (`salePrice` per
 * line) against what the supplier charges to land the goods (its final product, postage, IOSS
 * and fee amounts, after discounts). One rule per order: a least margin in percent, a least
 * margin in USD, or a most landed cost in USD. This module decides; order/marginGuard.ts and
 * checkout/marginBatch.ts act. Sandbox-safe: zod and types only.
 */
import { z } from 'zod';

const usd = () => z.number({ error: 'must be a number (USD)' });

/** `{minPercent}`, `{minUsd}` or `{maxLandedCostUsd}`: exactly one. */
export const MarginRule = z
  .strictObject(
    {
      /** The margin, in percent of the sale, at least this. */
      minPercent: z
        .number({ error: 'must be a number (percent)' })
        .min(0, { error: 'must be at least 0' })
        .lt(100, { error: 'must be below 100 (a margin is a share of the sale)' })
        .optional(),
      /** The margin, in USD, at least this. */
      minUsd: usd().min(0, { error: 'must be at least 0' }).optional(),
      /** The landed cost, in USD, at most this. */
      maxLandedCostUsd: usd().positive({ error: 'must be above 0' }).optional(),
    },
    { error: 'must be {minPercent} | {minUsd} | {maxLandedCostUsd}' },
  )
  .refine(
    (r) => [r.minPercent, r.minUsd, r.maxLandedCostUsd].filter((v) => v !== undefined).length === 1,
    {
      error: 'must name exactly one of minPercent, minUsd, maxLandedCostUsd',
    },
  );
export type MarginRule = z.output<typeof MarginRule>;

/** Whether the rule needs the sale price of every line. */
export function needsSalePrice(rule: MarginRule): boolean {
  return rule.minPercent !== undefined || rule.minUsd !== undefined;
}

/** The supplier's amounts for an order, as far as it said them (USD). */
export interface SupplierAmounts {
  orderAmount?: number | undefined;
  productAmount?: number | undefined;
  postageAmount?: number | undefined;
  iossAmount?: number | undefined;
  /** Fees beside product, postage and IOSS (service fee, IOSS handling fee). */
  feeAmount?: number | undefined;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * The landed cost: product + postage + IOSS + fees, each as the supplier charges it after its
 * discounts; its order total where it did not say the parts. Undefined when it said neither.
 */
export function landedCost(a: SupplierAmounts | undefined): number | undefined {
  if (a === undefined) return undefined;
  if (a.productAmount !== undefined && a.postageAmount !== undefined) {
    return round2(a.productAmount + a.postageAmount + (a.iossAmount ?? 0) + (a.feeAmount ?? 0));
  }
  return a.orderAmount;
}

/** What the customer paid for the order's lines (USD); undefined when a line has no salePrice. */
export function saleOf(
  products: readonly { quantity: unknown; salePrice?: number | undefined }[],
): number | undefined {
  if (products.some((p) => p.salePrice === undefined)) return undefined;
  return round2(products.reduce((s, p) => s + p.salePrice! * Number(p.quantity), 0));
}

/** What an order brings to a margin check: its rule, its sale and its cost when created. */
export interface MarginTerms {
  rule: MarginRule;
  /** Σ salePrice × quantity (USD), when every line has a salePrice. */
  sale?: number;
  /** The landed cost the supplier answered at create (USD), when it said. */
  costAtCreate?: number;
}

/** Where the margin rule was checked: at the cart (before confirming), or before paying. */
export type MarginMoment = 'cart' | 'payment';

/** One check of the rule against the landed cost at a moment. */
export interface MarginCheck extends MarginTerms {
  costNow: number;
  /** sale − cost (USD), with a sale. */
  marginUsd?: number;
  /** The margin in percent of the sale, with a sale above 0. */
  marginPercent?: number;
  holds: boolean;
}

/** Checks the rule against the landed cost now. */
export function checkMargin(terms: MarginTerms, costNow: number): MarginCheck {
  const { rule, sale, costAtCreate } = terms;
  const marginUsd = sale === undefined ? undefined : round2(sale - costNow);
  const marginPercent =
    marginUsd === undefined || sale === undefined || sale <= 0
      ? undefined
      : Math.round((marginUsd / sale) * 1000) / 10;
  const holds =
    rule.maxLandedCostUsd !== undefined
      ? costNow <= rule.maxLandedCostUsd
      : rule.minUsd !== undefined
        ? marginUsd !== undefined && marginUsd >= rule.minUsd
        : marginPercent !== undefined && marginPercent >= rule.minPercent!;
  return {
    rule,
    ...(sale !== undefined && { sale }),
    ...(costAtCreate !== undefined && { costAtCreate }),
    costNow,
    ...(marginUsd !== undefined && { marginUsd }),
    ...(marginPercent !== undefined && { marginPercent }),
    holds,
  };
}

const money = (n: number) => `${n.toFixed(2)} USD`;

/** The rule in words. */
export function ruleText(rule: MarginRule): string {
  if (rule.maxLandedCostUsd !== undefined)
    return `landed cost at most ${money(rule.maxLandedCostUsd)}`;
  if (rule.minUsd !== undefined) return `margin at least ${money(rule.minUsd)}`;
  return `margin at least ${rule.minPercent} %`;
}

/** The numbers of a check: cost at create, cost now, margin, rule. */
export function checkText(c: MarginCheck): string {
  const margin =
    c.marginUsd === undefined
      ? ''
      : `, margin ${money(c.marginUsd)}${c.marginPercent === undefined ? '' : ` (${c.marginPercent} %)`} of a sale of ${money(c.sale!)}`;
  const atCreate = c.costAtCreate === undefined ? 'unknown' : money(c.costAtCreate);
  return `landed cost ${money(c.costNow)} now (${atCreate} at create)${margin}; rule: ${ruleText(c.rule)}`;
}

/** A logistics option of the order, as the supplier offers it. */
export interface LogisticsOffer {
  id: string;
  logisticsName: string;
  postage?: number;
  /** Business days, `min-max` (or one number). */
  arrivalTime?: string;
}

/** The latest day an option promises, from `12-20` or `7`; undefined when unreadable. */
export function latestDay(arrivalTime: string | undefined): number | undefined {
  const days = (arrivalTime ?? '').match(/\d+/g)?.map(Number);
  return days === undefined || days.length === 0 ? undefined : Math.max(...days);
}

/** A logistics change that keeps the rule: the option, the check it gives, and what it saves. */
export interface LogisticsRescue {
  offer: LogisticsOffer;
  check: MarginCheck;
  /** Postage saved against the current line (USD). */
  savedUsd: number;
}

/**
 * What a merchant would try first: the cheapest other line of the order that keeps the rule and
 * promises delivery no later than the current one. Undefined when none does (or the current line
 * or its postage is not among the offers).
 */
export function rescueByLogistics(
  failed: MarginCheck,
  currentLine: string | undefined,
  offers: readonly LogisticsOffer[],
): LogisticsRescue | undefined {
  const same = (o: LogisticsOffer) =>
    currentLine !== undefined && o.logisticsName.toLowerCase() === currentLine.toLowerCase();
  const current = offers.find(same);
  const latest = latestDay(current?.arrivalTime);
  if (current?.postage === undefined || latest === undefined) return undefined;
  const rescues = offers
    .filter((o) => !same(o) && o.postage !== undefined)
    .filter((o) => (latestDay(o.arrivalTime) ?? Infinity) <= latest)
    .map((offer) => ({
      offer,
      check: checkMargin(failed, round2(failed.costNow - current.postage! + offer.postage!)),
      savedUsd: round2(current.postage! - offer.postage!),
    }))
    .filter((r) => r.check.holds && r.savedUsd > 0)
    .sort((a, b) => a.check.costNow - b.check.costNow);
  return rescues[0];
}
