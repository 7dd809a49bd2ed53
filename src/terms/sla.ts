/**
 * Delivery promises (docs/delivery-promises.md): the deadlines an order is held to, as the store
 * sets them (its account's `sla` in the registry, `ORDER_SLA` for the default account) and an
 * order overrides them (`fulfillment.sla`). This is the contract other areas import: the four
 * deadlines, their ISO-8601 durations and zod schema, what the status shows of each, and the memo
 * that carries the store's deadlines into the workflow. Sandbox-safe: zod only.
 */
import { z } from 'zod';

/** The deadlines, in the order an order meets them. */
export const Deadline = {
  /** Paid within `paidWithin` of receipt. */
  Paid: 'paid',
  /** A tracking number (shipped) within `shippedWithin` of payment. */
  Shipped: 'shipped',
  /** The carrier's first scan within `firstScanWithin` of shipment. */
  FirstScan: 'firstScan',
  /** Delivered within `deliveredWithin` of shipment. */
  Delivered: 'delivered',
} as const;
export type Deadline = (typeof Deadline)[keyof typeof Deadline];
export const DEADLINES: readonly Deadline[] = Object.values(Deadline);

/** The input field of each deadline. */
export const WITHIN_FIELD = {
  paid: 'paidWithin',
  shipped: 'shippedWithin',
  firstScan: 'firstScanWithin',
  delivered: 'deliveredWithin',
} as const satisfies Record<Deadline, string>;

const DURATION =
  /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;
const UNIT_MS = [7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1_000];
/** The longest promise dropflow keeps (an order's life is weeks, not years). */
const MAX_MS = 366 * 86_400_000;

export const DURATION_RULE =
  'must be an ISO-8601 duration of weeks, days, hours, minutes or seconds, such as PT48H, P7D or PT5S';

/** Milliseconds of an ISO-8601 duration (`P1W`, `P7D`, `PT48H`, `P1DT12H`, `PT5S`), or undefined. */
export function durationMs(iso: string): number | undefined {
  const m = DURATION.exec(iso);
  if (m === null || iso === 'P' || iso.endsWith('T')) return undefined;
  // Units left out are undefined (the regex's types do not say so).
  const parts: (string | undefined)[] = m.slice(1);
  return parts.reduce(
    (sum, part, i) => sum + (part === undefined ? 0 : Number(part) * UNIT_MS[i]!),
    0,
  );
}

/** One ISO-8601 duration; years and months are refused (they have no fixed length). */
export const IsoDuration = z.string().superRefine((value, ctx) => {
  const ms = durationMs(value);
  if (ms === undefined) {
    const why = /^P[^T]*[YM]/.test(value)
      ? 'years and months have no fixed length: use weeks or days (P30D)'
      : DURATION_RULE;
    ctx.addIssue({ code: 'custom', message: why });
  } else if (ms <= 0) {
    ctx.addIssue({ code: 'custom', message: 'must be longer than zero' });
  } else if (ms > MAX_MS) {
    ctx.addIssue({ code: 'custom', message: 'must be at most 366 days' });
  }
});

/** `fulfillment.sla` of an order, and a store's `sla`: each deadline optional. */
export const SlaDurations = z.strictObject({
  paidWithin: IsoDuration.optional(),
  shippedWithin: IsoDuration.optional(),
  firstScanWithin: IsoDuration.optional(),
  deliveredWithin: IsoDuration.optional(),
});
export type SlaDurations = z.output<typeof SlaDurations>;

/**
 * The memo key that carries the store's deadlines (its account's `sla`) into an order's workflow;
 * set by whoever starts the order, so the deadlines an order keeps are fixed when it is received.
 */
export const SLA_MEMO = 'slaDefaults';

/** Where a deadline's duration came from. */
export type DeadlineSource = 'order' | 'store' | 'logistics';

/** One deadline as the `status` query shows it. */
export interface DeadlineView {
  deadline: Deadline;
  /** The ISO-8601 duration it allows. */
  within: string;
  source: DeadlineSource;
  /** When it is due (ISO 8601), once the moment it counts from has come. */
  dueAt?: string;
  /** `pending` until due; `met` in time; `missed` once past due (met late or not yet). */
  state: 'waiting' | 'pending' | 'met' | 'missed';
  /** When it was met (in time or late). */
  metAt?: string;
  /** How late it was met, in seconds (met after it was missed). */
  lateSeconds?: number;
}
