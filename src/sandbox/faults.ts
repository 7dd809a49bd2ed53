/**
 * Faults injected through POST /__sandbox/faults, consumed by matching calls. Kept in memory only:
 * a restarted sandbox starts healthy.
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
]);
export type FaultKind = z.infer<typeof FaultKind>;

export const FaultRule = z.object({
  /** Endpoint path after /api2.0/v1/, such as `shopping/order/createOrderV3`, or `*`. */
  path: z.string().min(1),
  kind: FaultKind,
  /** How many matching calls it affects; default 1. */
  times: z.number().int().positive().default(1),
  latencyMs: z.number().int().nonnegative().default(0),
  status: z.number().int().min(500).max(599).default(503),
  /** Limit the fault to one account. */
  openId: z.string().optional(),
});
export type FaultRule = z.infer<typeof FaultRule>;

export class Faults {
  private rules: FaultRule[] = [];

  add(rule: FaultRule): void {
    this.rules.push({ ...rule });
  }

  clear(openId?: string): void {
    this.rules = openId === undefined ? [] : this.rules.filter((r) => r.openId !== openId);
  }

  list(): readonly FaultRule[] {
    return this.rules;
  }

  /** Takes the first rule matching the call, if any. */
  take(path: string, openId: string | undefined): FaultRule | undefined {
    const i = this.rules.findIndex(
      (r) => (r.path === '*' || r.path === path) && (r.openId === undefined || r.openId === openId),
    );
    if (i < 0) return undefined;
    const rule = this.rules[i]!;
    rule.times -= 1;
    if (rule.times <= 0) this.rules.splice(i, 1);
    return rule;
  }
}
