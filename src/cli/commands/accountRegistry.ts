/**
 * `dropflow account add|list|remove|set-tier`: the registry file (docs/accounts.md). Edits are
 * atomic and locked (src/accounts/registryFile.ts); workers and gateways re-read the file within
 * seconds. An account with open workflows is not removed without `--force`: its orders would stop
 * at NEEDS_ATTENTION until it is back.
 */
import type { Client } from '@temporalio/client';
import { Option, type Command } from 'commander';

import { RATE_TIERS } from '../../accounts/contract.js';
import {
  AccountEditError,
  addAccount,
  listAccounts,
  parseTier,
  removeAccount,
  setTier,
  type AccountChanges,
  type Listing,
} from '../../accounts/registryEdits.js';
import { RegistryFileError } from '../../accounts/registryFile.js';
import { accountsFile, loadConfig, type Config } from '../../config/environment.js';
import { SupplierAccount } from '../../temporal/searchAttributes.js';
import { literal } from '../../temporal/visibility.js';
import { CommandError } from '../failure.js';
import { EXIT_INVALID, printJson, printLines, reportIssues, tableLines } from '../output.js';
import { connectTemporal, temporalOptions, type TemporalFlags } from '../temporal.js';

interface AddFlags {
  tier?: string;
  apiKeyEnv?: string;
  apiKeyStdin?: boolean;
  baseUrl?: string;
  openIdEnv?: string;
  storeEventsUrl?: string;
  storeEventsSecretEnv?: string;
  sla?: string;
  margin?: string;
  intakeTokenEnv?: string[];
  update?: boolean;
  json?: boolean;
}

interface RemoveFlags extends TemporalFlags {
  force?: boolean;
  json?: boolean;
}

const repeat = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The value of the environment variable a `--…-env` flag names; never printed. */
export function fromEnv(flag: string, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new AccountEditError([{ field: flag, rule: `the variable ${name} is not set` }]);
  }
  return value;
}

async function fromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function changesOf(flags: AddFlags): Promise<AccountChanges> {
  if (flags.apiKeyEnv !== undefined && flags.apiKeyStdin === true) {
    throw new AccountEditError([
      {
        field: '--api-key-stdin',
        rule: 'give the API key one way: --api-key-env or --api-key-stdin',
      },
    ]);
  }
  const apiKey =
    flags.apiKeyStdin === true ? await fromStdin() : fromEnv('--api-key-env', flags.apiKeyEnv);
  const openId = fromEnv('--open-id-env', flags.openIdEnv);
  const storeEventsSecret = fromEnv('--store-events-secret-env', flags.storeEventsSecretEnv);
  const intakeTokens = flags.intakeTokenEnv?.map((name) => fromEnv('--intake-token-env', name)!);
  return {
    ...(flags.tier !== undefined && { tier: parseTier(flags.tier) }),
    ...(apiKey !== undefined && { apiKey }),
    ...(flags.baseUrl !== undefined && { baseUrl: flags.baseUrl }),
    ...(openId !== undefined && { openId }),
    ...(flags.storeEventsUrl !== undefined && { storeEventsUrl: flags.storeEventsUrl }),
    ...(storeEventsSecret !== undefined && { storeEventsSecret }),
    ...(flags.sla !== undefined && {
      sla: jsonFlag('sla', '{"paidWithin":"PT48H","shippedWithin":"P3D"}', flags.sla),
    }),
    ...(flags.margin !== undefined && {
      margin: jsonFlag('margin', '{"minPercent":20}', flags.margin),
    }),
    ...(intakeTokens !== undefined && { intakeTokens }),
  };
}

/** A flag given as JSON (`--sla`, `--margin`); what it holds is checked with the other changes. */
function jsonFlag(field: string, example: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AccountEditError([{ field, rule: `must be a JSON object such as ${example}` }]);
  }
}

/** Runs an edit; a refused one prints its field issues (exit 2), a bad file likewise. */
export async function edit(json: boolean, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (err instanceof AccountEditError || err instanceof RegistryFileError) {
      reportIssues(err.issues, json);
      return;
    }
    throw err;
  }
}

const atRest = (encrypted: boolean) =>
  encrypted
    ? 'secrets encrypted at rest (DROPFLOW_ENCRYPTION_KEY)'
    : 'secrets stored IN CLEAR: set DROPFLOW_ENCRYPTION_KEY to encrypt them at rest';

function encrypted(config: Config): boolean {
  return config.DROPFLOW_ENCRYPTION_KEY !== undefined;
}

/** Open workflows (orders, disputes, singletons) started for `account`, as visibility counts them. */
export async function openRunsOf(client: Client, account: string): Promise<number> {
  const { count } = await client.workflow.count(
    `${SupplierAccount.name} = ${literal(account)} AND ExecutionStatus = 'Running'`,
  );
  return count;
}

export function formatListing(listing: Listing): string[] {
  const yes = (b: boolean) => (b ? 'yes' : 'no');
  const rows = [
    ['ACCOUNT', 'TIER', 'FROM', 'API KEY', 'OPENID', 'STORE EVENTS', 'INTAKE TOKENS', 'BASE URL'],
    ...listing.accounts.map((a) => [
      a.id,
      `${a.tier}/s`,
      a.source === 'environment' ? 'env' : 'file',
      yes(a.hasApiKey),
      a.hasOpenId ? 'yes' : 'from token',
      a.storeEventsUrl === undefined ? 'deployment' : new URL(a.storeEventsUrl).host,
      a.source === 'environment' ? 'GATEWAY_TOKEN' : String(a.intakeTokens),
      a.baseUrl ?? 'deployment',
    ]),
  ];
  return [
    ...tableLines(rows),
    `${listing.file} (revision ${listing.revision}); ${atRest(listing.encryptedAtRest)}`,
  ];
}

export function registerRegistryCommands(account: Command): void {
  addCommand(account);
  setTierCommand(account);
  listCommand(account);
  removeCommand(account);
}

function addCommand(account: Command): void {
  account
    .command('add')
    .description(
      'add a supplier account to the registry (or change one with --update); workers take it in without a restart',
    )
    .argument('<id>', 'the account id: 1 to 32 lower-case letters, digits or "-"')
    .addOption(
      new Option('--tier <n>', "the account's request rate per second").choices(
        RATE_TIERS.map(String),
      ),
    )
    .option('--api-key-env <VAR>', 'read the API key from this environment variable')
    .option('--api-key-stdin', 'read the API key from stdin')
    .option('--base-url <url>', "the supplier's base URL (default: the deployment's)")
    .option(
      '--open-id-env <VAR>',
      "the webhook signing key (openId) from this variable (default: learned from the account's token)",
    )
    .option(
      '--store-events-url <url>',
      "where the account's store events go (default: the deployment's)",
    )
    .option(
      '--store-events-secret-env <VAR>',
      'the store events signing secret (whsec_…) from this variable',
    )
    .option(
      '--sla <json>',
      'the store\'s deadlines for its orders, ISO-8601 durations: {"paidWithin":"PT48H","shippedWithin":"P3D","firstScanWithin":"P2D","deliveredWithin":"P14D"} (replaces them)',
    )
    .option(
      '--margin <json>',
      'the store\'s margin rule for orders that name none: {"minPercent":20}, {"minUsd":5} or {"maxLandedCostUsd":40} (replaces it)',
    )
    .option(
      '--intake-token-env <VAR>',
      "a store intake token that may act on this account's orders, from this variable (repeatable; replaces the list); only its SHA-256 is kept",
      repeat,
    )
    .option('--update', 'change an existing account: only the fields given')
    .option('--json', 'print the account as listed, as one JSON document')
    .action(async (id: string, flags: AddFlags) => {
      const json = flags.json === true;
      await edit(json, async () => {
        const config = loadConfig();
        const doc = await addAccount(config, id, await changesOf(flags), {
          update: flags.update === true,
        });
        const listed = (await listAccounts(config)).accounts.find((a) => a.id === id)!;
        if (json) printJson({ ...listed, revision: doc.revision });
        else {
          printLines([
            `account ${id} ${flags.update === true ? 'updated' : 'added'} (tier ${listed.tier}/s) in ${accountsFile(config)}, revision ${doc.revision}; ${atRest(encrypted(config))}`,
            'workers and gateways take it in within seconds, without a restart',
          ]);
        }
      });
    });
}

function setTierCommand(account: Command): void {
  account
    .command('set-tier')
    .description("change an account's rate tier; workers and singletons follow without a restart")
    .argument('<id>', 'the account id')
    .argument('<tier>', `the tier: ${RATE_TIERS.join(', ')} requests per second`)
    .option('--json', 'print the outcome as one JSON document')
    .action(async (id: string, tier: string, flags: { json?: boolean }) => {
      const json = flags.json === true;
      await edit(json, async () => {
        const doc = await setTier(loadConfig(), id, parseTier(tier));
        if (json) printJson({ id, tier: Number(tier), revision: doc.revision });
        else printLines([`account ${id}: tier ${tier}/s, revision ${doc.revision}`]);
      });
    });
}

function listCommand(account: Command): void {
  account
    .command('list')
    .description('the accounts: ids, tiers and which secrets are set (never the secrets)')
    .option('--json', 'print the accounts as one JSON document')
    .action(async (flags: { json?: boolean }) => {
      const json = flags.json === true;
      await edit(json, async () => {
        const listing = await listAccounts(loadConfig());
        if (json) printJson(listing);
        else printLines(formatListing(listing));
      });
    });
}

function removeCommand(account: Command): void {
  temporalOptions(
    account
      .command('remove')
      .description(
        'remove an account from the registry; refused while it has open workflows (--force removes anyway)',
      )
      .argument('<id>', 'the account id')
      .option(
        '--force',
        'remove it even with open workflows (they wait at NEEDS_ATTENTION until it is back)',
      )
      .option('--json', 'print the outcome as one JSON document'),
  ).action(async (id: string, flags: RemoveFlags) => {
    const json = flags.json === true;
    const config = loadConfig();
    const listing = await listAccounts(config).catch((err: unknown) => {
      if (err instanceof RegistryFileError) return undefined;
      throw err;
    });
    if (
      listing !== undefined &&
      !listing.accounts.some((a) => a.id === id && a.source === 'file')
    ) {
      reportIssues([{ field: 'id', rule: `no account "${id}" in the registry` }], json);
      return;
    }
    const temporal = await connectTemporal(flags);
    let open: number;
    try {
      open = await openRunsOf(temporal.client, id);
    } finally {
      await temporal.close();
    }
    if (open > 0 && flags.force !== true) {
      throw new CommandError(
        `account ${id} has ${open} open workflow${open === 1 ? '' : 's'}: removing it would stop them at NEEDS_ATTENTION; let them finish, or remove it with --force`,
        'ACCOUNT_IN_USE',
        EXIT_INVALID,
      );
    }
    await edit(json, async () => {
      const doc = await removeAccount(config, id);
      const left =
        open === 0
          ? 'no open workflows'
          : `${open} open workflow${open === 1 ? '' : 's'} left: they stop at NEEDS_ATTENTION (no supplier account "${id}") and go on once it is added back`;
      if (json) printJson({ id, removed: true, openWorkflows: open, revision: doc.revision });
      else printLines([`account ${id} removed, revision ${doc.revision}; ${left}`]);
    });
  });
}
