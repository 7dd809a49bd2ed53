/**
 * `dropflow connect`: connect a store variant to a catalogue variant (the supplier's
 * createConnection). Store-flow orders waiting for it are released by the supplier, whose
 * ORDER_CONNNECTED message reaches their workflows through the gateway.
 */
import type { Command } from 'commander';

import { loadConfig, supplierTarget } from '../../config/environment.js';
import { SupplierRequestInvalid } from '../../supplier/errors.js';
import { SupplierClient } from '../../supplier/client.js';
import { nonNegativeInt } from '../options.js';
import { printJson, reportIssues } from '../output.js';

interface ConnectFlags {
  storeProductId: string;
  storeVariantId: string;
  svcProductId: string;
  svcVariantId: string;
  logistics: string;
  defaultArea: number;
  shopId?: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('connect')
    .description('connect a store variant to a catalogue variant (store flow C)')
    .requiredOption('--store-product-id <id>', "the store's product id")
    .requiredOption('--store-variant-id <id>', "the store's variant id")
    .requiredOption('--svc-product-id <id>', 'the catalogue product id, e.g. P0002')
    .requiredOption('--svc-variant-id <id>', 'the catalogue variant id, e.g. P0002-V1')
    .option('--logistics <name>', 'default logistics line', 'SvcPacket Ordinary')
    .option('--default-area <n>', 'default warehouse area id (1: China)', nonNegativeInt, 1)
    .option('--shop-id <id>', 'the shop (default: the API shop)')
    .option('--json', 'print the outcome as one JSON document')
    .action(async (flags: ConnectFlags) => {
      const config = loadConfig();
      const supplier = new SupplierClient({
        ...supplierTarget(config),
        ratePerSecond: config.SUPPLIER_RATE_PER_SECOND,
      });
      const connection = {
        storeProductId: flags.storeProductId,
        storeVariantId: flags.storeVariantId,
        svcProductId: flags.svcProductId,
        svcVariantId: flags.svcVariantId,
      };
      try {
        await supplier.api.createConnection({
          ...(flags.shopId !== undefined && { shopId: flags.shopId }),
          defaultArea: flags.defaultArea,
          logistics: flags.logistics,
          svcProductId: flags.svcProductId,
          platformProductId: flags.storeProductId,
          variantList: [
            { svcVariantId: flags.svcVariantId, platformVariantId: flags.storeVariantId },
          ],
        });
      } catch (err) {
        if (err instanceof SupplierRequestInvalid) {
          reportIssues(err.issues, flags.json === true);
          return;
        }
        throw err;
      } finally {
        await supplier.close();
      }
      if (flags.json === true) printJson({ connected: true, ...connection });
      else {
        process.stdout.write(
          `connected store ${flags.storeProductId}/${flags.storeVariantId} to ${flags.svcProductId}/${flags.svcVariantId}\n`,
        );
      }
    });
}
