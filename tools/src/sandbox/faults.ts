/**
 * Faults injected through POST /__sandbox/faults, consumed by matching calls, or (with `forMs`)
 * affecting every matching call for a while. Kept in memory only: a restarted sandbox starts
 * healthy.
 */
import { z } from 'zod';

export const FaultKind = z.enum([
  /** Answer late by `latencyMs`. */
  'latency',
  /** Answer with HTTP `status` (default 503) and a non-envelope body. */
  'http5xx',
  /** Close the connection without answering, before acting. */
  'reset',
  /** Envelope 1600000 System busy. */
  'busy',
  /** Envelope 1600200 Too Many Requests. */
  'rateLimit',
  /** Envelope 1600201: the daily quota is used up until 00:00 UTC. */
  'quota',
  /** Act (change state), then close the connection without answering: a lost response. */
  'commitThenDrop',
  /** Envelope 1601000 User not find: the supplier refuses the API key (getAccessToken). */
  'keyRefused',
]);
export type FaultKind = z.infer<typeof FaultKind>;

export const FaultRule = z.object({
  /**
   * Endpoint path after /api2.0/v1/, such as `shopping/order/createOrderV3`, or `*`: every
   * endpoint but the token calls (`authentication/…`), which the supplier counts apart from the
   * account's budget; a fault of a token call names its path.
   */
  path: z.string().min(1),
  kind: FaultKind,
  /** How many matching calls it affects; default 1. */
  times: z.number().int().positive().default(1),
  /** Instead of `times`: every matching call for this many ms from now (a window). */
  forMs: z.number().int().positive().optional(),
  latencyMs: z.number().int().nonnegative().default(0),
  status: z.number().int().min(500).max(599).default(503),
  /** Limit the fault to one account. */
  openId: z.string().optional(),
});
export type FaultRule = z.infer<typeof FaultRule>;

type HeldRule = FaultRule & { until?: number };

/** The token endpoints: outside the account's budget, so `*` leaves them alone. */
const TOKEN_PATHS = 'authentication/';

export class Faults {
  private rules: HeldRule[] = [];

  add(rule: FaultRule, now = Date.now()): void {
    this.rules.push({ ...rule, ...(rule.forMs !== undefined && { until: now + rule.forMs }) });
  }

  clear(openId?: string): void {
    this.rules = openId === undefined ? [] : this.rules.filter((r) => r.openId !== openId);
  }

  list(now = Date.now()): readonly FaultRule[] {
    this.dropEnded(now);
    return this.rules;
  }

  /** Takes the first rule matching the call, if any. */
  take(path: string, openId: string | undefined, now = Date.now()): FaultRule | undefined {
    this.dropEnded(now);
    const i = this.rules.findIndex(
      (r) =>
        (r.path === path || (r.path === '*' && !path.startsWith(TOKEN_PATHS))) &&
        (r.openId === undefined || r.openId === openId),
    );
    if (i < 0) return undefined;
    const rule = this.rules[i]!;
    if (rule.until !== undefined) return rule;
    rule.times -= 1;
    if (rule.times <= 0) this.rules.splice(i, 1);
    return rule;
  }

  /** A rule taken by a call that never reached the supplier's act (refused for the rate). */
  putBack(rule: FaultRule): void {
    const held = rule as HeldRule;
    if (held.until !== undefined) return;
    held.times += 1;
    if (!this.rules.includes(held)) this.rules.unshift(held);
  }

  /** Windows that have passed. */
  private dropEnded(now: number): void {
    this.rules = this.rules.filter((r) => r.until === undefined || r.until > now);
  }
}
