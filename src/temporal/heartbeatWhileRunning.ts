/**
 * A supplier call's task has a short heartbeat timeout, so that one a worker took and will never
 * finish (it crashed, or the server handed it to a poll the worker was closing at its SIGTERM) goes
 * back to the queue within seconds instead of after its start-to-close timeout. While the activity
 * runs, this beats for it: every third of the timeout, the first beat only once it has run that
 * long, so the usual call of a second or two records none (each recorded beat is a Temporal action).
 */
import type { Context } from '@temporalio/activity';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';

class HeartbeatWhileRunning implements ActivityInboundCallsInterceptor {
  constructor(private readonly ctx: Context) {}

  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    const timeoutMs = this.ctx.info.heartbeatTimeoutMs;
    if (timeoutMs === undefined || timeoutMs <= 0) return next(input);
    const beat = setInterval(
      () => {
        this.ctx.heartbeat();
      },
      Math.max(1_000, timeoutMs / 3),
    );
    try {
      return await next(input);
    } finally {
      clearInterval(beat);
    }
  }
}

/** For the workers of the supplier queues: their activities record no heartbeat details. */
export const heartbeatWhileRunning: ActivityInterceptorsFactory = (ctx) => ({
  inbound: new HeartbeatWhileRunning(ctx),
});
