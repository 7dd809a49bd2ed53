/**
 * The checkout coordinator's settings (docs/architecture.md §14): how it batches, how often it
 * reads the balance, its per-run budgets, and their defaults. The environment reads them
 * (CHECKOUT_*, src/config/environment.ts), the coordinator takes them by signal
 * (checkout/contract.ts), so they live below both. Sandbox-safe: no imports.
 */

export interface CheckoutSettings {
  /** Off: every order carts and pays alone (5 supplier calls each). */
  batching: boolean;
  /** A batch closes once no order joined for this long... */
  quietMs: number;
  /** ...or once its first order waited this long, */
  maxWaitMs: number;
  /** ...or once it holds this many orders. */
  maxBatch: number;
  /** How often the balance is read while orders wait for funds. */
  fundsCheckMs: number;
  /**
   * A run continues as new once it received this many signals (Temporal refuses more than
   * 10,000 per run by default). Absent in settings from before 2026-11: the default then.
   */
  signalsPerRun?: number;
  /** ...or once its history holds this many events (Temporal's limit: 51,200 by default). */
  historyPerRun?: number;
  /**
   * Outcomes per call of the tell activity (`tellOutcomes`), which signals them 20 at once; in runs
   * from before it (Patch.OutcomesByActivity), outcome signals in flight at most (Temporal fails a
   * task past 2,000 pending by default).
   */
  outcomesInFlight?: number;
}

/** The coordinator's per-run budgets: when it continues as new, how many outcomes it sends at once. */
export type CheckoutBudgets = Required<
  Pick<CheckoutSettings, 'signalsPerRun' | 'historyPerRun' | 'outcomesInFlight'>
>;

/** Well below Temporal's default limits, with room for what arrives while a full run drains. */
export const DEFAULT_CHECKOUT_BUDGETS: CheckoutBudgets = {
  signalsPerRun: 4_000,
  historyPerRun: 10_000,
  outcomesInFlight: 200,
};

/** The budgets these settings give, the defaults where they say none. */
export function checkoutBudgets(settings: CheckoutSettings): CheckoutBudgets {
  return {
    signalsPerRun: settings.signalsPerRun ?? DEFAULT_CHECKOUT_BUDGETS.signalsPerRun,
    historyPerRun: settings.historyPerRun ?? DEFAULT_CHECKOUT_BUDGETS.historyPerRun,
    outcomesInFlight: settings.outcomesInFlight ?? DEFAULT_CHECKOUT_BUDGETS.outcomesInFlight,
  };
}

export const DEFAULT_CHECKOUT_SETTINGS: CheckoutSettings = {
  batching: true,
  quietMs: 2_000,
  maxWaitMs: 30_000,
  maxBatch: 50,
  fundsCheckMs: 30 * 60_000,
  ...DEFAULT_CHECKOUT_BUDGETS,
};
