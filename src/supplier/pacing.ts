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
import { fleetViewOf, type FleetShare, type FleetView } from './fleet.js';
import { classSlotEvery } from './fleetGrid.js';
import { Pacer, type GridSlot, type PacerGrid, type SlotEvery, type TakeOptions } from './pacer.js';

export interface AccountRates {
  /** The account's requests per second (tier: 1, 2, 4 or 6). */
  perSecond: number;
  /** getOrderDetailBatch and getProofOfDelivery per second. */
  batchPerSecond: number;
  /**
   * The fleet this process is one of: the live roster of the deployment's workers, or a share set
   * by hand (`SUPPLIER_FLEET_SHARE`). None: the only one, off any grid.
   */
  fleet?: FleetShare | FleetView;
  /** In a fleet: where in its period the account's grid starts, 0 … 1 (gridPhaseOf). */
  gridPhase?: number;
}

function gridOf(rates: AccountRates): PacerGrid | undefined {
  const { fleet, perSecond } = rates;
  // A share of one set by hand: alone for good, no grid to ask.
  if (fleet === undefined || ('of' in fleet && fleet.of <= 1)) return undefined;
  return { fleet: fleetViewOf(fleet), tier: perSecond, phase: rates.gridPhase ?? 0 };
}

/**
 * Where an account's grid starts within its period, the same in every process: from the account's
 * API key (hashed, `keyDigest` in hex). On grids that all started at the epoch, the slots of
 * accounts of different tiers fell on the same moments (every 525 ms for tiers 2 and 6), and a
 * process with several accounts' calls due at once sent the last of them past its slot.
 */
export function gridPhaseOf(keyDigest: string): number {
  return Number.parseInt(keyDigest.slice(0, 8), 16) / 2 ** 32;
}

/** A call's slot on a fleet's grid: it leaves `by` then or not at all, and says when it left. */
export interface SendSlot {
  by: number;
  sent(at: number): void;
}

export class AccountPacing {
  readonly rate: AdaptiveRate;
  private readonly account: Pacer;
  private readonly batch: Pacer;
  /** In a fleet: the account's slots a batch query may take (fleetGrid.ts, classSlotEvery). */
  private readonly batchEvery: SlotEvery | undefined;

  constructor(rates: AccountRates) {
    this.rate = new AdaptiveRate(rates.perSecond);
    const grid = gridOf(rates);
    this.account = new Pacer(() => this.rate.perSecond, grid);
    this.batch = new Pacer(() => rates.batchPerSecond);
    // Asked for every slot a batch query's search looks at: worked out once per fleet size.
    const every = new Map<number, number>();
    this.batchEvery =
      grid &&
      ((of) => {
        const n = every.get(of) ?? classSlotEvery(of, rates.perSecond, rates.batchPerSecond);
        every.set(of, n);
        return n;
      });
  }

  /**
   * Resolves when a call of `rateClass` may be sent; rejects as `Pacer.take` does. In a fleet, it
   * resolves with the call's slot: the time the call must have left by (its slot, and the
   * catch-up a late timer has), and where to say when it left. A slot that this process comes
   * back to later than that (it stalled between the slot's timer and the call) is let go for the
   * next one. Alone (off any grid), no slot.
   */
  async take(
    rateClass: Exclude<RateClass, 'token'>,
    options: TakeOptions = {},
  ): Promise<SendSlot | undefined> {
    const started = Date.now();
    const bound = options.maxWaitMs;
    for (;;) {
      const left = bound === undefined ? {} : { maxWaitMs: bound - (Date.now() - started) };
      const slot = await this.slotOf(rateClass, { ...options, ...left });
      if (slot === undefined) return undefined;
      if (Date.now() > slot.by) continue;
      return {
        by: slot.by,
        sent: (at) => {
          this.account.sent(slot, at);
        },
      };
    }
  }

  /** The account's slot on the fleet's grid that a call of `rateClass` takes. */
  private async slotOf(
    rateClass: Exclude<RateClass, 'token'>,
    options: TakeOptions,
  ): Promise<GridSlot | undefined> {
    if (rateClass === 'batch') {
      // In this process, the batch queries' own spacing; on a fleet's grid also only every n-th
      // slot, so that the fleet's batch queries keep theirs (a process alone has no grid then).
      const started = Date.now();
      await this.batch.take(options);
      const bound = options.maxWaitMs;
      if (bound !== undefined) options = { ...options, maxWaitMs: bound - (Date.now() - started) };
      if (this.batchEvery !== undefined) options = { ...options, slotEvery: this.batchEvery };
    }
    return this.account.take(options);
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
  const fleet = rates.fleet === undefined ? '' : fleetViewOf(rates.fleet).key;
  const key = `${accountKey}|${rates.perSecond}|${rates.batchPerSecond}|${fleet}|${rates.gridPhase ?? 0}`;
  let p = accounts.get(key);
  if (p === undefined) {
    p = new AccountPacing(rates);
    accounts.set(key, p);
  }
  return p;
}
