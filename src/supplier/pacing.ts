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
import { Pacer, type FleetShare, type PacerGrid, type TakeOptions } from './pacer.js';

export interface AccountRates {
  /** The account's requests per second (tier: 1, 2, 4 or 6). */
  perSecond: number;
  /** getOrderDetailBatch and getProofOfDelivery per second. */
  batchPerSecond: number;
  /** This process's share of a fleet of several (`SUPPLIER_FLEET_SHARE`); none: the only one. */
  fleet?: FleetShare;
}

/**
 * In a fleet, the slack of each 1 s of slots: `perSecond` slots span 1 s and this much, so that a
 * call a little late (a timer, the network) never puts `perSecond + 1` of the fleet's calls
 * into one second at the supplier. The supplier's window is a sliding 1 s (tools/src/sandbox
 * measures the same way).
 */
export const FLEET_SLACK_MS = 50;

function gridOf(perSecond: number, fleet: FleetShare | undefined): PacerGrid | undefined {
  if (fleet === undefined || fleet.of <= 1) return undefined;
  return { ...fleet, periodMs: (1000 + FLEET_SLACK_MS) / perSecond };
}

export class AccountPacing {
  readonly rate: AdaptiveRate;
  private readonly account: Pacer;
  private readonly batch: Pacer;

  constructor(rates: AccountRates) {
    this.rate = new AdaptiveRate(rates.perSecond);
    this.account = new Pacer(() => this.rate.perSecond, gridOf(rates.perSecond, rates.fleet));
    this.batch = new Pacer(() => rates.batchPerSecond, gridOf(rates.batchPerSecond, rates.fleet));
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
  const fleet = rates.fleet === undefined ? '' : `${rates.fleet.index}/${rates.fleet.of}`;
  const key = `${accountKey}|${rates.perSecond}|${rates.batchPerSecond}|${fleet}`;
  let p = accounts.get(key);
  if (p === undefined) {
    p = new AccountPacing(rates);
    accounts.set(key, p);
  }
  return p;
}
