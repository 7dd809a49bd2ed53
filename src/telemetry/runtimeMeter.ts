/**
 * The SDK runtime's metric meter for code outside workflows and activities (the supplier client,
 * the gateway, visibility gauges). Only a runtime installed by `installRuntimeLogger` exports
 * anything; a process without one (the sandbox, a CLI command, most tests) gets a no-op meter
 * rather than a runtime created behind its back.
 */
import { noopMetricMeter, type MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';

export function runtimeMetricMeter(): MetricMeter {
  return Runtime._instance?.metricMeter ?? noopMetricMeter;
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
