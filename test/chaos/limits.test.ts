/**
 * `--lowered-limits`: the checkout coordinator's budgets come from the same numbers as the dev
 * server's lowered limits, stay below them, and reach the workers and the gateway through their
 * environment (src/config/environment.ts).
 */
import { describe, expect, it } from 'vitest';

import {
  checkoutBudgetEnv,
  checkoutBudgetsUnder,
  LOWERED_LIMITS,
} from '../../tools/src/chaos/limits.js';
import { checkoutSettings, loadConfig } from '../../src/config/environment.js';
import { DEFAULT_CHECKOUT_BUDGETS } from '../../src/terms/checkoutSettings.js';

describe('the checkout budgets under lowered limits', () => {
  const budgets = checkoutBudgetsUnder(LOWERED_LIMITS);

  it('stay below the limits the server enforces, as the defaults stay below its defaults', () => {
    expect(budgets.signalsPerRun).toBeLessThan(
      LOWERED_LIMITS['history.maximumSignalsPerExecution']! / 2,
    );
    expect(budgets.historyPerRun).toBeLessThan(LOWERED_LIMITS['limit.historyCount.error']! / 4);
    expect(budgets.outcomesInFlight).toBeLessThan(
      LOWERED_LIMITS['limit.numPendingSignals.error']! / 5,
    );
    expect(budgets.outcomesInFlight).toBeGreaterThan(0);
    expect(checkoutBudgetsUnder({})).toEqual(DEFAULT_CHECKOUT_BUDGETS);
  });

  it("reach the coordinator's settings through the environment", () => {
    const settings = checkoutSettings(loadConfig(checkoutBudgetEnv(budgets)));
    expect(settings).toMatchObject(budgets);
    expect(checkoutSettings(loadConfig({}))).toMatchObject(DEFAULT_CHECKOUT_BUDGETS);
  });

  it('refuses a budget past what the cluster allows by default', () => {
    expect(() => loadConfig({ CHECKOUT_SIGNALS_PER_RUN: '10000' })).toThrow(
      /CHECKOUT_SIGNALS_PER_RUN/,
    );
  });
});
