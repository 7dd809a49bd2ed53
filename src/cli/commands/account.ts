/**
 * `dropflow account …`: the supplier account registry (docs/accounts.md) and the session of an
 * account.
 *
 * - `account add|list|remove|set-tier`: edit and show the registry file (ACCOUNTS_FILE); every
 *   worker and gateway takes a change in within seconds, without a restart. Secrets come from an
 *   environment variable or stdin, never from a flag, and are never printed.
 * - `account reauth [account]`: after the supplier's API key was mended, ask the account's session
 *   (`supplier-session[:<prefix>]`) to send getAccessToken at the earliest moment the supplier's
 *   spacing allows, and print what it gave or when it will be sent.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Command } from 'commander';

import { reauthUpdate, supplierSessionId, type ReauthAnswer } from '../../session/contract.js';
import { queuePrefix } from '../../temporal/taskQueues.js';
import { CommandError } from '../failure.js';
import { printJson, printLines } from '../output.js';
import { connectTemporal, temporalOptions, type TemporalFlags } from '../temporal.js';
import { registerRegistryCommands } from './accountRegistry.js';

interface ReauthFlags extends TemporalFlags {
  json?: boolean;
}

/** The names `[account]` takes for the account of the unprefixed queue set. */
const DEFAULT_ACCOUNT = 'default';

export function register(program: Command): void {
  const account = program
    .command('account')
    .description('the supplier accounts: the registry (add, list, remove, set-tier) and sessions');
  registerRegistryCommands(account);
  temporalOptions(
    account
      .command('reauth')
      .description(
        "after the API key was mended: the session tries getAccessToken as soon as the supplier's spacing allows",
      )
      .argument(
        '[account]',
        `the account's task-queue prefix, or "${DEFAULT_ACCOUNT}" for none (default: --task-queue-prefix, TEMPORAL_TASK_QUEUE_PREFIX or the running \`dropflow dev\`)`,
      )
      .option('--json', 'print the answer as one JSON document'),
    { queues: true },
  ).action(async (name: string | undefined, flags: ReauthFlags) => {
    const temporal = await connectTemporal(flags);
    try {
      const prefix =
        name === undefined
          ? queuePrefix(temporal.target.queues)
          : name === DEFAULT_ACCOUNT
            ? ''
            : name;
      const answer = await reauth(temporal.client, supplierSessionId(prefix));
      if (flags.json === true) printJson(answer);
      else printLines([answerLine(answer)]);
      if (answer.outcome === 'refused' || answer.outcome === 'failed') process.exitCode = 1;
    } finally {
      await temporal.close();
    }
  });
}

async function reauth(client: Client, sessionId: string): Promise<ReauthAnswer> {
  try {
    return await client.workflow.getHandle(sessionId).executeUpdate(reauthUpdate);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      throw new CommandError(
        `no session ${sessionId}: no worker or gateway of the account has asked for a token yet`,
        'NO_SESSION',
      );
    }
    if (err instanceof WorkflowUpdateFailedError) {
      throw new CommandError(
        `the session ${sessionId} did not take reauth (${err.cause?.message ?? err.message}); a session still on the waits of an earlier release takes it at its next turn`,
        'REAUTH_REFUSED',
      );
    }
    throw err;
  }
}

function answerLine(a: ReauthAnswer): string {
  const refused = a.session.keyRefusedSince;
  const state = refused !== undefined ? `key refused since ${refused}` : 'key accepted';
  return `reauth: ${a.outcome}; ${a.message}; ${state}; has token: ${a.session.hasToken ? 'yes' : 'no'}`;
}
