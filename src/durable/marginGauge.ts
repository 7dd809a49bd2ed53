/**
 * The margin guard's metrics, one place for the order's own checks (order/marginGuard.ts) and its
 * checkout batch's (checkout/marginBatch.ts): margin per checked order, and held orders. Workflow
 * code only (the workflow's metric meter, labelled with its account).
 */
import { metricMeter } from '@temporalio/workflow';
import { workflowAccount } from './account.js';
import { counterOf, histogramOf, METRICS } from '../telemetry/metrics.js';
import type { MarginCheck, MarginMoment } from '../terms/margin.js';

/** Records one check of an order's margin rule: its margin, and whether it is held. */
export function observeMargin(check: MarginCheck, at: MarginMoment | 'batch'): void {
  const account = workflowAccount();
  if (check.marginPercent !== undefined) {
    // An int histogram: a negative margin lands in the lowest bucket.
    histogramOf(metricMeter, METRICS.orderMarginPercent).record(
      Math.max(0, Math.round(check.marginPercent)),
      { at, account },
    );
  }
  if (!check.holds) counterOf(metricMeter, METRICS.marginHeld).add(1, { at, account });
}
