/**
 * `dropflow store map <store> <sku> <vid>` and `dropflow store map <store> --csv <file>`: writes
 * the store's SKU → supplier variant mappings, then tells the orders of that store waiting at
 * AWAITING_MAPPING (visibility: FulfillmentStage and SupplierAccount, workflow id of the store's
 * orders) to look again (`storeSkuMapped`). A signal that fails is reported, never fatal: the
 * order looks again by itself within 15 minutes.
 */
import { readFile } from 'node:fs/promises';

import type { Client } from '@temporalio/client';
import type { Command } from 'commander';

import { listStores, mapSkus, parseMappingCsv } from '../../accounts/storeEdits.js';
import { AccountEditError } from '../../accounts/registryEdits.js';
import { loadConfig } from '../../config/environment.js';
import { orderWorkflowId, Stage } from '../../order/contract.js';
import { storeOrderNumber, storeSkuMappedSignal } from '../../store/contract.js';
import { FulfillmentStage, SupplierAccount } from '../../temporal/searchAttributes.js';
import { literal } from '../../temporal/visibility.js';
import { printJson, printLines } from '../output.js';
import { connectTemporal, temporalOptions, type TemporalFlags } from '../temporal.js';
import { edit } from './accountRegistry.js';

interface MapFlags extends TemporalFlags {
  csv?: string;
  json?: boolean;
}

export interface Released {
  signalled: string[];
  failed: { workflowId: string; error: string }[];
}

/**
 * The ids of the running order workflows of a store's orders (`order:[<account>:]<store>-<store
 * order id>`; the platforms' order ids hold no `-`, so store `a` never takes store `a-b`'s), among
 * those `where` finds.
 */
export async function* runningStoreOrders(
  client: Client,
  connection: string,
  account: string,
  where: string,
): AsyncGenerator<string> {
  const prefix = orderWorkflowId(storeOrderNumber(connection, ''), account);
  const query = `${where} AND ExecutionStatus = 'Running'`;
  for await (const wf of client.workflow.list({ query })) {
    const rest = wf.workflowId.slice(prefix.length);
    if (wf.workflowId.startsWith(prefix) && rest !== '' && !rest.includes('-')) {
      yield wf.workflowId;
    }
  }
}

/** Signals the store's orders waiting for a mapping; each failure is kept, none thrown. */
export async function releaseWaiting(
  client: Client,
  connection: string,
  account: string,
  sku: string,
): Promise<Released> {
  const where = `${FulfillmentStage.name} = ${literal(Stage.AWAITING_MAPPING)} AND ${SupplierAccount.name} = ${literal(account)}`;
  const out: Released = { signalled: [], failed: [] };
  for await (const workflowId of runningStoreOrders(client, connection, account, where)) {
    try {
      await client.workflow.getHandle(workflowId).signal(storeSkuMappedSignal, { connection, sku });
      out.signalled.push(workflowId);
    } catch (err) {
      out.failed.push({ workflowId, error: (err as Error).message });
    }
  }
  return out;
}

async function mappingsOf(
  sku: string | undefined,
  vid: string | undefined,
  csv: string | undefined,
): Promise<{ sku: string; vid: string }[]> {
  if (csv !== undefined) {
    if (sku !== undefined) {
      throw new AccountEditError([
        { field: '--csv', rule: 'give the mappings one way: <sku> <vid> or --csv <file>' },
      ]);
    }
    const text = await readFile(csv, 'utf8').catch((err: unknown) => {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new AccountEditError([{ field: '--csv', rule: `cannot read ${csv} (${code})` }]);
    });
    return parseMappingCsv(text);
  }
  if (sku === undefined || vid === undefined) {
    throw new AccountEditError([
      { field: sku === undefined ? 'sku' : 'vid', rule: 'is required (or give --csv <file>)' },
    ]);
  }
  return [{ sku, vid }];
}

export function registerStoreMap(store: Command): void {
  temporalOptions(
    store
      .command('map')
      .description(
        "map a store SKU to a supplier variant (vid), and release the store's orders waiting at AWAITING_MAPPING",
      )
      .argument('<store>', 'the connection id')
      .argument('[sku]', "the store's SKU")
      .argument('[vid]', "the supplier's variant id")
      .option('--csv <file>', 'many mappings from a file of `sku,vid` lines (a header is skipped)')
      .option('--json', 'print the outcome as one JSON document'),
  ).action(
    async (id: string, sku: string | undefined, vid: string | undefined, flags: MapFlags) => {
      const json = flags.json === true;
      await edit(json, async () => {
        const config = loadConfig();
        const mappings = await mappingsOf(sku, vid, flags.csv);
        const doc = await mapSkus(config, id, mappings);
        const account = (await listStores(config)).find((s) => s.id === id)!.account;
        let released: Released | { error: string };
        try {
          const temporal = await connectTemporal(flags);
          try {
            released = await releaseWaiting(temporal.client, id, account, mappings[0]!.sku);
          } finally {
            await temporal.close();
          }
        } catch (err) {
          released = { error: (err as Error).message };
        }
        if (json)
          printJson({ store: id, mapped: mappings.length, revision: doc.revision, released });
        else printLines(mapLines(id, mappings.length, doc.revision, released));
      });
    },
  );
}

function mapLines(
  id: string,
  mapped: number,
  revision: number,
  released: Released | { error: string },
): string[] {
  const head = `store ${id}: ${mapped} SKU${mapped === 1 ? '' : 's'} mapped, revision ${revision}`;
  if ('error' in released) {
    return [
      head,
      `waiting orders not told (${released.error}): they look again by themselves within 15 minutes`,
    ];
  }
  return [
    head,
    `${released.signalled.length} waiting order${released.signalled.length === 1 ? '' : 's'} told to look again${released.signalled.length > 0 ? `: ${released.signalled.join(', ')}` : ''}`,
    ...released.failed.map(
      (f) => `  ${f.workflowId}: not told (${f.error}); it looks again within 15 minutes`,
    ),
  ];
}
