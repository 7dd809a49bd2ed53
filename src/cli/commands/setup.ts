/**
 * `dropflow setup`: prepares a self-hosted Temporal cluster's namespace for dropflow by
 * registering its search attributes (FulfillmentStage, OrderNumber, SvcOrderId, FulfillmentFlow,
 * NeedsAttention). Safe to run on every deployment.
 */
import type { Command } from 'commander';

import {
  registerSearchAttributes,
  type RegisteredSearchAttributes,
} from '../../temporal/registerSearchAttributes.js';
import { nonNegativeInt } from '../options.js';
import { printJson } from '../output.js';
import { connectTemporal, temporalOptions, type TemporalFlags } from '../temporal.js';

interface SetupFlags extends TemporalFlags {
  json?: boolean;
  waitSeconds: number;
}

const RETRY_EVERY_MS = 2_000;

export function register(program: Command): void {
  temporalOptions(
    program
      .command('setup')
      .description("register dropflow's search attributes in a Temporal namespace (idempotent)")
      .option('--json', 'print {added, present} as JSON')
      .option(
        '--wait-seconds <n>',
        'keep trying this long while the cluster is not up yet (a fresh deployment)',
        nonNegativeInt,
        0,
      ),
  ).action(async (flags: SetupFlags) => {
    const until = Date.now() + flags.waitSeconds * 1000;
    const { result, namespace } = await waitFor(until, () => registerOnce(flags));
    if (flags.json === true) {
      printJson(result);
      return;
    }
    process.stdout.write(
      `namespace ${namespace}: ${result.added.length > 0 ? `added ${result.added.join(', ')}` : 'nothing to add'}` +
        (result.present.length > 0 ? `; already there: ${result.present.join(', ')}` : '') +
        '\n',
    );
  });
}

async function registerOnce(
  flags: SetupFlags,
): Promise<{ result: RegisteredSearchAttributes; namespace: string }> {
  const temporal = await connectTemporal(flags);
  try {
    const namespace = temporal.target.namespace;
    return {
      result: await registerSearchAttributes(temporal.client.connection, namespace),
      namespace,
    };
  } finally {
    await temporal.close();
  }
}

/** Retries `attempt` while the server is unreachable and time is left. */
async function waitFor<T>(until: number, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() + RETRY_EVERY_MS > until || !isUnavailable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
    }
  }
}

/** The server is not reachable (yet), rather than refusing what was asked. */
function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  // gRPC UNAVAILABLE (14) and DEADLINE_EXCEEDED (4).
  return (
    code === 14 || code === 4 || (err instanceof Error && /unavailable|connect/i.test(err.message))
  );
}
