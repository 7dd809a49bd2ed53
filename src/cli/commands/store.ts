/**
 * `dropflow store add|list|remove|test|map`: the store connections of the account registry
 * (docs/store-shopify.md, docs/store-woocommerce.md). Like `dropflow account`, secrets come from
 * environment variables named by `--…-env` flags, never from argv, and are never printed.
 */
import { resolve } from 'node:path';

import { Option, type Command } from 'commander';

import { readAccounts } from '../../accounts/registry.js';
import { addStore, listStores, removeStore, type StoreListing } from '../../accounts/storeEdits.js';
import { AccountEditError } from '../../accounts/registryEdits.js';
import { loadConfig, type Config } from '../../config/environment.js';
import { ORDER_WORKFLOW } from '../../order/contract.js';
import { literal } from '../../temporal/visibility.js';
import { storeWebhookPath } from '../../store/contract.js';
import { OrderTrigger, STORE_PLATFORMS } from '../../accounts/contract.js';
import { checkStore } from '../../store/outbound/check.js';
import { readDevState } from '../devState.js';
import { printJson, printLines, reportIssues, tableLines } from '../output.js';
import { connectTemporal, temporalOptions, type TemporalFlags } from '../temporal.js';
import { edit, fromEnv } from './accountRegistry.js';
import { registerStoreMap, runningStoreOrders } from './storeMap.js';

interface AddFlags {
  platform: string;
  account?: string;
  apiBaseUrl?: string;
  shopDomain?: string;
  adminTokenEnv?: string;
  clientSecretEnv?: string;
  apiVersion?: string;
  trigger?: string;
  siteUrl?: string;
  consumerKeyEnv?: string;
  consumerSecretEnv?: string;
  webhookSecretEnv?: string;
  holdFor?: string;
  sweepEvery?: string;
  notifyCustomer?: boolean;
  baseUrl?: string;
  update?: boolean;
  json?: boolean;
}

function secretsOf(flags: AddFlags): Record<string, string> {
  const given: [string, string, string | undefined][] =
    flags.platform === 'shopify'
      ? [
          ['adminAccessToken', '--admin-token-env', flags.adminTokenEnv],
          ['clientSecret', '--client-secret-env', flags.clientSecretEnv],
        ]
      : [
          ['consumerKey', '--consumer-key-env', flags.consumerKeyEnv],
          ['consumerSecret', '--consumer-secret-env', flags.consumerSecretEnv],
          ['webhookSecret', '--webhook-secret-env', flags.webhookSecretEnv],
        ];
  const out: Record<string, string> = {};
  for (const [name, flag, variable] of given) {
    const value = fromEnv(flag, variable);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * The address to register at the store: the gateway's public address (--base-url,
 * WEBHOOK_BASE_URL, or the local gateway of a running `dropflow dev`) and the connection's route.
 */
function webhookUrl(config: Config, id: string, base: string | undefined): string {
  const at =
    base ??
    config.WEBHOOK_BASE_URL ??
    readDevState(resolve(config.DROPFLOW_DATA_DIR))?.urls.gateway;
  if (at === undefined) return `<your gateway's public https address>${storeWebhookPath(id)}`;
  return new URL(storeWebhookPath(id), at.endsWith('/') ? at : `${at}/`).toString();
}

function formatStores(stores: readonly StoreListing[]): string[] {
  if (stores.length === 0) return ['no store connections (add one with `dropflow store add`)'];
  const rows = [
    ['STORE', 'PLATFORM', 'ACCOUNT', 'TRIGGER', 'HOLD', 'SKUS MAPPED', 'API'],
    ...stores.map((s) => [
      s.id,
      s.platform,
      s.account,
      s.platform === 'shopify' ? s.orderTrigger : 'when paid',
      s.holdFor ?? 'none',
      String(s.mappings),
      s.apiBaseUrl,
    ]),
  ];
  return tableLines(rows);
}

function registerAdd(store: Command): void {
  store
    .command('add')
    .description('connect a Shopify shop or a WooCommerce site; prints the webhook URL to register')
    .argument('<id>', 'the connection id: 1 to 32 lower-case letters, digits or "-"')
    .addOption(
      new Option('--platform <platform>', 'the store platform')
        .choices([...STORE_PLATFORMS])
        .makeOptionMandatory(),
    )
    .option('--account <id>', 'the supplier account that fulfils its orders (default: default)')
    .option('--api-base-url <url>', "override the platform's API base URL (proxies, tests)")
    .option('--shop-domain <domain>', 'shopify: <shop>.myshopify.com')
    .option('--admin-token-env <VAR>', 'shopify: the Admin API access token from this variable')
    .option('--client-secret-env <VAR>', "shopify: the app's client secret (webhook HMAC key)")
    .option('--api-version <version>', 'shopify: the Admin API version (default 2025-10)')
    .addOption(
      new Option('--trigger <topic>', 'shopify: the topic that hands an order over').choices([
        OrderTrigger.Created,
        OrderTrigger.Paid,
      ]),
    )
    .option('--site-url <url>', "woocommerce: the site's URL")
    .option('--consumer-key-env <VAR>', 'woocommerce: the REST consumer key from this variable')
    .option('--consumer-secret-env <VAR>', 'woocommerce: the REST consumer secret')
    .option('--webhook-secret-env <VAR>', "woocommerce: the secret set on the site's webhooks")
    .option(
      '--hold-for <duration>',
      'wait this long (ISO-8601, e.g. PT1H) before any supplier call',
    )
    .option(
      '--sweep-every <duration>',
      "woocommerce: list the site's recent orders this often (ISO-8601, default PT5M, at least PT1M)",
    )
    .option('--no-notify-customer', 'do not let the platform email the customer on tracking')
    .option('--base-url <url>', "the gateway's public address, for the webhook URL printed")
    .option('--update', 'replace an existing connection (its SKU mappings stay)')
    .option('--json', 'print the connection as one JSON document')
    .action(async (id: string, flags: AddFlags) => {
      const json = flags.json === true;
      await edit(json, async () => {
        const config = loadConfig();
        const shopify = flags.platform === 'shopify';
        const doc = await addStore(
          config,
          {
            id,
            platform: flags.platform,
            secrets: secretsOf(flags),
            notifyCustomer: flags.notifyCustomer !== false,
            ...(flags.account !== undefined && { account: flags.account }),
            ...(flags.apiBaseUrl !== undefined && { apiBaseUrl: flags.apiBaseUrl }),
            ...(flags.holdFor !== undefined && { holdFor: flags.holdFor }),
            ...(shopify && { shopDomain: flags.shopDomain ?? '' }),
            ...(shopify && flags.apiVersion !== undefined && { apiVersion: flags.apiVersion }),
            ...(shopify && flags.trigger !== undefined && { orderTrigger: flags.trigger }),
            ...(!shopify && { siteUrl: flags.siteUrl ?? '' }),
            ...(!shopify && flags.sweepEvery !== undefined && { sweepEvery: flags.sweepEvery }),
          },
          { update: flags.update === true },
        );
        const listed = (await listStores(config)).find((s) => s.id === id)!;
        const url = webhookUrl(config, id, flags.baseUrl);
        if (json) printJson({ ...listed, webhookUrl: url, revision: doc.revision });
        else {
          const topics = shopify
            ? `${listed.orderTrigger}, orders/cancelled, orders/updated`
            : 'order.created, order.updated, order.deleted';
          printLines([
            `store ${id} (${listed.platform}, account ${listed.account}) ${flags.update === true ? 'updated' : 'added'}, revision ${doc.revision}`,
            `register this webhook URL at the store (${topics}): ${url}`,
            `then: dropflow store test ${id}`,
          ]);
        }
      });
    });
}

function registerListRemove(store: Command): void {
  store
    .command('list')
    .description(
      'the store connections: platform, account, trigger, hold, mapped SKUs (never secrets)',
    )
    .option('--json', 'print the connections as one JSON document')
    .action(async (flags: { json?: boolean }) => {
      const json = flags.json === true;
      await edit(json, async () => {
        const stores = await listStores(loadConfig());
        if (json) printJson({ stores });
        else printLines(formatStores(stores));
      });
    });

  temporalOptions(
    store
      .command('remove')
      .description(
        'remove a store connection and its SKU mappings; refused while orders of the store are in flight',
      )
      .argument('<id>', 'the connection id')
      .option(
        '--force',
        'remove it even with orders in flight (their tracking waits until it is added again)',
      )
      .option('--json', 'print the outcome as one JSON document'),
  ).action(async (id: string, flags: RemoveFlags) => {
    const json = flags.json === true;
    await edit(json, async () => {
      const config = loadConfig();
      const conn = (await listStores(config)).find((s) => s.id === id);
      if (conn !== undefined && flags.force !== true) await refuseInFlight(flags, conn);
      const doc = await removeStore(config, id);
      if (json) printJson({ id, removed: true, revision: doc.revision });
      else
        printLines([
          `store ${id} removed, revision ${doc.revision}; its webhooks are refused from now on (remove them at the store too)`,
        ]);
    });
  });
}

interface RemoveFlags extends TemporalFlags {
  force?: boolean;
  json?: boolean;
}

/** At most this many of a store's orders in flight are named when `remove` refuses. */
const NAMED_IN_FLIGHT = 3;

/**
 * Refuses to remove a store whose orders are in flight: their tracking, notes and cancellations go
 * through the connection. Never unsure: when Temporal cannot be asked, it is refused too.
 */
async function refuseInFlight(flags: TemporalFlags, conn: StoreListing): Promise<void> {
  const found: string[] = [];
  try {
    const temporal = await connectTemporal(flags);
    try {
      const where = `WorkflowType = ${literal(ORDER_WORKFLOW)}`;
      for await (const id of runningStoreOrders(temporal.client, conn.id, conn.account, where)) {
        found.push(id);
      }
    } finally {
      await temporal.close();
    }
  } catch (err) {
    throw new AccountEditError([
      {
        field: 'id',
        rule: `cannot tell whether orders of store "${conn.id}" are in flight (${(err as Error).message}): run it where Temporal answers, or remove it anyway with --force`,
      },
    ]);
  }
  if (found.length === 0) return;
  const named = found.slice(0, NAMED_IN_FLIGHT).join(', ');
  const more = found.length > NAMED_IN_FLIGHT ? ` and ${found.length - NAMED_IN_FLIGHT} more` : '';
  throw new AccountEditError([
    {
      field: 'id',
      rule: `store "${conn.id}" has ${found.length} order${found.length === 1 ? '' : 's'} in flight (${named}${more}): their tracking goes back through it; remove it once they are done, or now with --force (their store writes then wait until it is added again)`,
    },
  ]);
}

function registerTest(store: Command): void {
  store
    .command('test')
    .description('one read-only call to the store: says what is wrong (token, scope, version)')
    .argument('<id>', 'the connection id')
    .option('--json', 'print the check as one JSON document')
    .action(async (id: string, flags: { json?: boolean }) => {
      const json = flags.json === true;
      await edit(json, async () => {
        const view = await readAccounts(loadConfig());
        const conn = view.stores?.find((s) => s.id === id);
        if (conn === undefined) {
          reportIssues([{ field: 'id', rule: `no store "${id}" in the registry` }], json);
          return;
        }
        const check = await checkStore(conn);
        if (json) printJson({ id, ...check });
        else {
          printLines([
            `store ${id}: ${check.ok ? 'ok' : 'NOT ok'}`,
            ...check.facts.map((f) => `  ${f}`),
            ...check.problems.map((p) => `  ${p.kind}: ${p.message}`),
          ]);
        }
        if (!check.ok) process.exitCode = 1;
      });
    });
}

export function register(program: Command): void {
  const store = program
    .command('store')
    .description('store connections (Shopify, WooCommerce): add, list, remove, test, map');
  registerAdd(store);
  registerListRemove(store);
  registerTest(store);
  registerStoreMap(store);
}
