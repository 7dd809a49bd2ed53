/**
 * The SDK runtime's metric meter for code outside workflows and activities (the supplier client,
 * the gateway, visibility gauges). Only a runtime installed by `installRuntimeLogger` exports
 * anything, and it tells this module where to find it (`useRuntimeMeter`); a process without one
 * (the sandbox, a CLI command, most tests) gets a no-op meter rather than a runtime created behind
 * its back. This module does not load the SDK's worker package: the supplier client and the
 * gateway need not load it at all, and a test file that only parses a supplier answer saves its
 * second or two.
 */
import { noopMetricMeter, type MetricMeter } from '@temporalio/common';

/**
 * The meter of the runtime now in place. The SDK shuts an idle runtime down (its last worker
 * gone) and makes another with the same options when a worker starts again: hence a function.
 */
let current: (() => MetricMeter | undefined) | undefined;

/** Called by the code that installs the runtime: how to find the runtime's meter from now on. */
export function useRuntimeMeter(meter: () => MetricMeter | undefined): void {
  current = meter;
}

export function runtimeMetricMeter(): MetricMeter {
  return current?.() ?? noopMetricMeter;
}

/**
 * Instruments built once per meter: `get()` builds them on first use and again only when the
 * runtime appeared since (a client made before the runtime was installed).
 */
export function lazyInstruments<T>(build: (meter: MetricMeter) => T): () => T {
  let built: { meter: MetricMeter; value: T } | undefined;
  return () => {
    const meter = runtimeMetricMeter();
    if (built?.meter !== meter) built = { meter, value: build(meter) };
    return built.value;
  };
}
