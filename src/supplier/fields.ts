/**
 * Building blocks for the supplier's schemas.
 *
 * Requests are checked strictly (required fields, maximum lengths from docs/supplier-api.md) so a
 * bad order stops in dropflow with a message naming the field, instead of a supplier 1600100.
 * Responses are parsed tolerantly: unknown fields pass through, ids may arrive as numbers or
 * strings, amounts as numbers or decimal strings, and most fields may be missing or null.
 */
import { z } from 'zod';

const requiredOr = (rule: string) => (issue: { input: unknown }) =>
  issue.input === undefined || issue.input === null ? 'is required' : rule;

/** A required request string of at most `max` characters. */
export const text = (max: number) =>
  z
    .string({ error: requiredOr('must be a string') })
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

/** An optional request string of at most `max` characters. */
export const optText = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, { error: `must be at most ${max} characters` })
    .optional();

/** A required request integer; query strings carry numbers as text, so text digits are accepted. */
export const int = () =>
  z.coerce.number({ error: requiredOr('must be an integer') }).int({ error: 'must be an integer' });

export const optInt = () => int().optional();

/** A request amount in USD: decimal (18,2). */
export const amount = () =>
  z.coerce
    .number({ error: requiredOr('must be a number') })
    .nonnegative({ error: 'must not be negative' });

/**
 * A request list. GET list parameters arrive at the sandbox as a single string when sent once,
 * so a lone value is accepted as a one-element list.
 */
export const list = <T extends z.ZodType>(item: T, max?: number) => {
  const base = z.array(item, { error: requiredOr('must be a list') });
  const bounded =
    max === undefined ? base : base.max(max, { error: `must hold at most ${max} items` });
  return z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), bounded);
};

/** A required request list with at least one item (and at most `max`). */
export const nonEmptyList = <T extends z.ZodType>(item: T, max?: number) =>
  list(item, max).refine((items) => items.length > 0, { error: 'must hold at least one item' });

/** A request boolean; query strings carry "true"/"false". */
export const bool = () =>
  z.preprocess(
    (v) => (v === 'true' ? true : v === 'false' ? false : v),
    z.boolean({ error: requiredOr('must be true or false') }),
  );

// ---- response side: tolerant ----

/** An id the supplier may send as a number or a string; dropflow always holds a string. */
export const id = z.union([z.string(), z.number(), z.bigint()]).transform(String);
export const optId = id.nullish();

/** An amount that may arrive as a number or a decimal string. */
export const money = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : Number(v);
  if (Number.isNaN(n)) {
    ctx.addIssue({ code: 'custom', message: 'must be a number' });
    return z.NEVER;
  }
  return n;
});
export const optMoney = money.nullish();

export const optStr = z.string().nullish();
export const optNum = z.coerce.number().nullish();
export const optBool = z.boolean().nullish();

/** A response object that keeps fields this version does not know. */
export const record = <S extends z.ZodRawShape>(shape: S) => z.looseObject(shape);

/** A response list that may be missing or null; dropflow always holds an array. */
export const optList = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((v) => v ?? []);
