/**
 * A supplier call's task has a short heartbeat timeout, so that one a worker took and will never
 * finish (it crashed or was killed; a stop does not drop tasks: temporal/pollDrain.ts) goes
 * back to the queue within seconds instead of after its start-to-close timeout. While the activity
 * runs, this beats for it, the first time at 60 % of the timeout: a supplier call rarely runs that
 * long (its wait for a slot is at most 5 s), so almost none records a heartbeat, and each recorded
 * one is a Temporal action. After the first, the SDK sends one every 80 % of the timeout.
 */
import type { Context } from '@temporalio/activity';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';

const FIRST_BEAT = 0.6;
const THEN_EVERY = 0.4;

class HeartbeatWhileRunning implements ActivityInboundCallsInterceptor {
  constructor(private readonly ctx: Context) {}

  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    const timeoutMs = this.ctx.info.heartbeatTimeoutMs;
    if (timeoutMs === undefined || timeoutMs <= 0) return next(input);
    const beat = (): void => {
      this.ctx.heartbeat();
    };
    let every: ReturnType<typeof setInterval> | undefined;
    const first = setTimeout(() => {
      beat();
      every = setInterval(beat, timeoutMs * THEN_EVERY);
    }, timeoutMs * FIRST_BEAT);
    try {
      return await next(input);
    } finally {
      clearTimeout(first);
      clearInterval(every);
    }
  }
}

/** For the workers of the supplier queues: their activities record no heartbeat details. */
export const heartbeatWhileRunning: ActivityInterceptorsFactory = (ctx) => ({
  inbound: new HeartbeatWhileRunning(ctx),
});
