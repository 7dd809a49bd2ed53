import { DEFAULT_CHECKOUT_BUDGETS, type CheckoutBudgets } from 'dropflow/terms/checkoutSettings';

/**
 * `--lowered-limits`: the dev server's history and signal limits cut so that a few hundred
 * orders press on the account's singletons (checkout coordinator, session, inbox, sweeper) as a
 * 50,000-order day presses on the defaults (Temporal 1.29 and 1.32: history 51,200 events / 50 MB, 2,000
 * pending signals, 10,000 signals per execution). One order's own history (27–300 events, under
 * 200 kB in the recorded v5 histories) still fits several times over.
 */
export const LOWERED_LIMITS: Readonly<Record<string, number>> = {
  'limit.historyCount.error': 2_000,
  'limit.historyCount.warn': 1_000,
  'limit.historyCount.suggestContinueAsNew': 800,
  'limit.historySize.error': 2 * 1024 * 1024,
  'limit.historySize.warn': 512 * 1024,
  'limit.historySize.suggestContinueAsNew': 512 * 1024,
  'limit.numPendingSignals.error': 100,
  'history.maximumSignalsPerExecution': 400,
};

/** `--dynamic-config-value KEY=JSON` arguments of `temporal server start-dev`. */
export function dynamicConfigArgs(values: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(values).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}

/** Temporal's defaults of the limits the checkout coordinator's budgets stay under. */
const TEMPORAL_DEFAULTS = {
  'history.maximumSignalsPerExecution': 10_000,
  'limit.historyCount.error': 51_200,
  'limit.numPendingSignals.error': 2_000,
} as const;

/**
 * The checkout coordinator's budgets under these limits: the share of each limit that the
 * defaults take of Temporal's defaults (a limit not lowered keeps its default budget).
 */
export function checkoutBudgetsUnder(limits: Readonly<Record<string, number>>): CheckoutBudgets {
  const share = (budget: number, key: keyof typeof TEMPORAL_DEFAULTS): number => {
    const limit = limits[key];
    return limit === undefined
      ? budget
      : Math.max(1, Math.floor((budget * limit) / TEMPORAL_DEFAULTS[key]));
  };
  return {
    signalsPerRun: share(
      DEFAULT_CHECKOUT_BUDGETS.signalsPerRun,
      'history.maximumSignalsPerExecution',
    ),
    historyPerRun: share(DEFAULT_CHECKOUT_BUDGETS.historyPerRun, 'limit.historyCount.error'),
    outcomesInFlight: share(
      DEFAULT_CHECKOUT_BUDGETS.outcomesInFlight,
      'limit.numPendingSignals.error',
    ),
  };
}

/** The workers' and the gateway's environment for these budgets (src/config/environment.ts). */
export function checkoutBudgetEnv(budgets: CheckoutBudgets): Record<string, string> {
  return {
    CHECKOUT_SIGNALS_PER_RUN: String(budgets.signalsPerRun),
    CHECKOUT_HISTORY_PER_RUN: String(budgets.historyPerRun),
    CHECKOUT_OUTCOMES_IN_FLIGHT: String(budgets.outcomesInFlight),
  };
}
