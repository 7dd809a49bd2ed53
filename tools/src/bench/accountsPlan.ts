/**
 * The accounts of `dropflow bench accounts`: the first has the backlog (`big`), the next
 * `smallAccounts` get a few orders each during it (`small`), the rest only exist (`idle`: the fleet
 * serves them all the same). Tiers go round 1, 2, 4, 6 requests/s after the big account's own.
 */
import { RATE_TIERS, type RateTier } from 'dropflow/contracts/accounts';

export const AccountRole = { big: 'big', small: 'small', idle: 'idle' } as const;
export type AccountRole = (typeof AccountRole)[keyof typeof AccountRole];

export interface BenchAccount {
  /** `bench-01` …: a registry id (ACCOUNT_ID). */
  id: string;
  tier: RateTier;
  role: AccountRole;
  /** Orders it gets in the measured run. */
  orders: number;
}

export interface AccountsPlanOptions {
  accounts: number;
  smallAccounts: number;
  backlog: number;
  smallOrders: number;
  bigTier: RateTier;
}

export function benchAccountId(index: number): string {
  return `bench-${String(index + 1).padStart(2, '0')}`;
}

export function planAccounts(o: AccountsPlanOptions): BenchAccount[] {
  if (o.smallAccounts > o.accounts - 1) {
    throw new Error(
      `${o.smallAccounts} small accounts do not fit beside the big one in ${o.accounts} accounts`,
    );
  }
  return Array.from({ length: o.accounts }, (_, i): BenchAccount => {
    const id = benchAccountId(i);
    if (i === 0) return { id, tier: o.bigTier, role: AccountRole.big, orders: o.backlog };
    const tier = RATE_TIERS[(i - 1) % RATE_TIERS.length]!;
    return i <= o.smallAccounts
      ? { id, tier, role: AccountRole.small, orders: o.smallOrders }
      : { id, tier, role: AccountRole.idle, orders: 0 };
  });
}
