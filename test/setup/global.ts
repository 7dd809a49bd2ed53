/**
 * vitest globalSetup: the real Temporal dev server every integration test talks to, started once
 * per run (docs/architecture.md §2.3, §19); the supplier sandbox has its own globalSetup
 * (sandbox.ts). Tests read them with `inject('temporalAddress')` etc.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

import { createLogger } from '../../src/telemetry/log.js';
import { startDevServer, type DevServer } from '../../src/temporal/devServer.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = createLogger('test-setup');
  const closers: (() => Promise<void>)[] = [];
  const teardown = async (): Promise<void> => {
    // Last started, first stopped.
    for (const close of closers.reverse()) {
      await close().catch((err: unknown) => {
        log.error({ err }, 'teardown failed');
      });
    }
    closers.length = 0;
  };

  try {
    // --- Temporal dev server ------------------------------------------------------------------
    const temporal: DevServer = await startDevServer({ log, ui: false });
    closers.push(() => temporal.close());
    project.provide('temporalAddress', temporal.address);
    project.provide('temporalNamespace', temporal.namespace);
    // --- The run's shared workflow bundles (test/support/bundles.ts) ---------------------------
    const bundles = await mkdtemp(join(tmpdir(), 'dropflow-bundles-'));
    closers.push(() => rm(bundles, { recursive: true, force: true }));
    project.provide('workflowBundleDir', bundles);
  } catch (err) {
    await teardown();
    throw err;
  }

  // vitest exits on SIGINT/SIGTERM without calling the returned teardown; start the shutdown so
  // the dev server process does not outlive the run (best effort: vitest exits right after). If
  // nobody else handles the signal, re-raise it once we are done so the default action happens.
  const onSignal = (signal: NodeJS.Signals): void => {
    void teardown().finally(() => {
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  return async () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await teardown();
  };
}
