/**
 * The pacing of one supplier account in this process. Every request but the token calls spends
 * the account's one budget, at the adaptive rate (adaptiveRate.ts); the batch order query and
 * proof of delivery also keep within their own limit. The Temporal task queue already hands out
 * the account's tasks at its rate across processes; this keeps one process's calls apart and slows
 * it down while the supplier refuses.
 */
import { AdaptiveRate } from './adaptiveRate.js';
import type { RateClass } from './endpoint.js';
import { SupplierCode } from './errors.js';
import { Pacer, type TakeOptions } from './pacer.js';

export interface AccountRates {
  /** The account's requests per second (tier: 1, 2, 4 or 6). */
  perSecond: number;
  /** getOrderDetailBatch and getProofOfDelivery per second. */
  batchPerSecond: number;
}

export class AccountPacing {
  readonly rate: AdaptiveRate;
  private readonly account: Pacer;
  private readonly batch: Pacer;

  constructor(rates: AccountRates) {
    this.rate = new AdaptiveRate(rates.perSecond);
    this.account = new Pacer(() => this.rate.perSecond);
    this.batch = new Pacer(() => rates.batchPerSecond);
  }

  /** Resolves when a call of `rateClass` may be sent; rejects as `Pacer.take` does. */
  async take(rateClass: Exclude<RateClass, 'token'>, options: TakeOptions = {}): Promise<void> {
    if (rateClass === 'batch') {
      const started = Date.now();
      await this.batch.take(options);
      const bound = options.maxWaitMs;
      if (bound !== undefined) options = { ...options, maxWaitMs: bound - (Date.now() - started) };
    }
    await this.account.take(options);
  }

  /** What the supplier answered to a call sent at `sentAt` (epoch ms). */
  answered(code: number, sentAt: number): void {
    if (code === SupplierCode.TooManyRequests) this.rate.refused(sentAt);
    else if (code !== SupplierCode.SystemBusy && code !== SupplierCode.QuotaUsedUp) {
      this.rate.accepted();
    }
  }
}

const accounts = new Map<string, AccountPacing>();

/** One pacing per account and rates in this process, shared by every client of the account. */
export function pacingFor(accountKey: string, rates: AccountRates): AccountPacing {
  const key = `${accountKey}|${rates.perSecond}|${rates.batchPerSecond}`;
  let p = accounts.get(key);
  if (p === undefined) {
    p = new AccountPacing(rates);
    accounts.set(key, p);
  }
  return p;
}
