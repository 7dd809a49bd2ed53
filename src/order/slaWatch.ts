/**
 * The workflow side of an order's deadlines: one loop beside the order's own work that holds a
 * single timer, for the deadline due first. When that changes (it is met, or one due earlier
 * starts), the timer is cancelled and the next one set; when it fires, the deadline is missed and
 * the order is told. The order's own waits are left as they are: being late is a flag, never a stage.
 */
import { condition, isCancellation, metricMeter, workflowInfo } from '@temporalio/workflow';
import { SlaClock, type MissedDeadline } from './slaClock.js';
import { SLA_MEMO, SlaDurations } from '../terms/sla.js';
import type { Order } from './order.js';
import { counterOf, METRICS } from '../telemetry/metrics.js';
import { workflowAccount } from '../durable/account.js';

/**
 * The order keeps its deadlines from its receipt on: its own `fulfillment.sla` before the store's
 * (the memo its starter set from the account). Call once, at the start of the run.
 */
export function keepDeadlines(o: Order): void {
  const clock = SlaClock.start(
    o.current.input.fulfillment.sla,
    storeDeadlines(),
    workflowInfo().runStartTime.getTime(),
  );
  o.deadlines.kept(clock);
  void watchDeadlines(clock, (missed) => {
    // Skipped while replaying, like every workflow metric.
    counterOf(metricMeter, METRICS.ordersLate).add(1, {
      deadline: missed.deadline,
      account: workflowAccount(),
    });
    o.deadlines.missed(missed);
  });
}

/** The store's deadlines as its starter saw them; a memo that does not parse counts as none. */
function storeDeadlines(): SlaDurations | undefined {
  const parsed = SlaDurations.safeParse(workflowInfo().memo?.[SLA_MEMO]);
  return parsed.success ? parsed.data : undefined;
}

function sameDue(a: NextDue | undefined, b: NextDue | undefined): boolean {
  return a?.deadline === b?.deadline && a?.dueAt === b?.dueAt;
}

type NextDue = NonNullable<ReturnType<SlaClock['next']>>;

/** Runs until the clock is stopped; `missed` is told of each deadline missed, once. */
export async function watchDeadlines(
  clock: SlaClock,
  missed: (deadline: MissedDeadline) => void,
): Promise<void> {
  try {
    while (!clock.stoppedNow) {
      const next = clock.next();
      // Only a change of the deadline due first sets a new timer (another one met, say, does not).
      const changed = () => clock.stoppedNow || !sameDue(clock.next(), next);
      if (next === undefined) {
        await condition(changed);
        continue;
      }
      const left = next.dueAt - new Date().getTime();
      if (left > 0 && (await condition(changed, left))) continue;
      missed(clock.missed(next.deadline, new Date().getTime()));
    }
  } catch (err) {
    // The run itself was cancelled: the order's own steps answer for it.
    if (!isCancellation(err)) throw err;
  }
}
