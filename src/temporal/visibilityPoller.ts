/**
 * Gauges counted from visibility: now, then every `everyMs` until stopped. Counting from
 * visibility rather than keeping counts in the process makes them true across restarts and the
 * same in every worker process of an account. Each probe sets its own gauges; one that fails
 * leaves them as they were until the next tick, and does not keep the other probes from counting.
 */
import type { Client, CountWorkflowExecution } from '@temporalio/client';

import type { Logger } from '../telemetry/log.js';

/** A count that hangs (Temporal unreachable) gives up after this long. */
const COUNT_TIMEOUT_MS = 10_000;

/** One visibility count, bounded in time and abandoned at `stop()`. */
export type Count = (query: string) => Promise<CountWorkflowExecution>;

export interface VisibilityProbe {
  /** Names the probe in the debug log of a failed count. */
  name: string;
  /** `stopped` aborts when the gauges stop: a probe's own call must give up then. */
  run(count: Count, stopped: AbortSignal): Promise<void>;
}

export interface PollerOptions {
  /** Between two ticks (default 60 s). */
  everyMs?: number;
  log: Pick<Logger, 'debug'>;
  /** Logged with a failed count. */
  context?: Record<string, unknown>;
}

export interface VisibilityPoller {
  /** Stops counting; a count under way is abandoned, and resolves once it has given up. */
  stop(): Promise<void>;
}

export function startVisibilityPoller(
  client: Client,
  probes: readonly VisibilityProbe[],
  options: PollerOptions,
): VisibilityPoller {
  const everyMs = options.everyMs ?? 60_000;
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let counting: Promise<void> = Promise.resolve();

  const count: Count = (query) => {
    const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(COUNT_TIMEOUT_MS)]);
    return client.withAbortSignal(signal, () => client.workflow.count(query));
  };
  // Whatever a probe sets after stop() would outlive the workers.
  const guarded: Count = async (query) => {
    const counted = await count(query);
    if (stopping.signal.aborted) throw new Error('stopped');
    return counted;
  };

  const tick = (): void => {
    counting = Promise.all(
      probes.map((probe) =>
        probe.run(guarded, stopping.signal).catch((err: unknown) => {
          if (stopping.signal.aborted) return;
          options.log.debug(
            { err, ...options.context, probe: probe.name },
            `${probe.name}: count failed`,
          );
        }),
      ),
    ).then(() => undefined);
    void counting.then(() => {
      if (!stopping.signal.aborted) timer = setTimeout(tick, everyMs);
    });
  };
  tick();

  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await counting;
    },
  };
}
