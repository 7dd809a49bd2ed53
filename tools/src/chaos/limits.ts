/**
 * `--lowered-limits`: the dev server's history and signal limits cut so that a few hundred
 * orders press on the account's singletons (checkout coordinator, session, inbox, sweeper) as a
 * 50,000-order day presses on the defaults (Temporal 1.29: history 51,200 events / 50 MB, 2,000
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
