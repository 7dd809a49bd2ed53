/**
 * `dropflow dev` (and `npm start`): everything on embedded defaults — a Temporal dev server with
 * its UI and a database under the data directory, and the sandbox supplier with an automatic
 * order lifecycle. Prints the URLs; Ctrl-C stops it all.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../log.js';
import { startSandbox } from '../../sandbox/server.js';
import { startDevServer } from '../../temporal/devServer.js';
import { nonNegativeInt, portOption, untilSignal } from '../options.js';

interface DevFlags {
  temporalPort?: number;
  uiPort?: number;
  sandboxPort?: number;
  dataDir?: string;
  lifecycleMs: number;
}

export function register(program: Command): void {
  program
    .command('dev')
    .description('run everything locally: Temporal dev server with UI, sandbox supplier')
    .option(
      '--temporal-port <n>',
      'Temporal frontend port (env TEMPORAL_PORT, default 7233)',
      portOption,
    )
    .option('--ui-port <n>', 'Temporal UI port (env TEMPORAL_UI_PORT, default 8233)', portOption)
    .option('--sandbox-port <n>', 'sandbox port (env SANDBOX_PORT, default 8787)', portOption)
    .option('--data-dir <dir>', 'state directory (env DROPFLOW_DATA_DIR, default .dropflow)')
    .option(
      '--lifecycle-ms <n>',
      'ms between automatic steps of paid sandbox orders',
      nonNegativeInt,
      5_000,
    )
    .action(async (flags: DevFlags) => {
      const config = loadConfig();
      const log = createLogger('dev');
      const dataDir = resolve(flags.dataDir ?? config.DROPFLOW_DATA_DIR);
      await mkdir(dataDir, { recursive: true });

      const temporal = await startDevServer({
        log,
        ui: true,
        port: flags.temporalPort ?? config.TEMPORAL_PORT,
        uiPort: flags.uiPort ?? config.TEMPORAL_UI_PORT,
        dbFilename: `${dataDir}/temporal.db`,
      });
      const sandbox = await startSandbox({
        log: createLogger('sandbox'),
        port: flags.sandboxPort ?? config.SANDBOX_PORT,
        dataDir,
        apiKey: config.SANDBOX_API_KEY,
        lifecycleStepMs: flags.lifecycleMs,
        allowLocalWebhooks: true,
      });

      process.stdout.write(
        [
          '',
          'dropflow dev is running:',
          `  Temporal        ${temporal.address} (namespace ${temporal.namespace})`,
          `  Temporal UI     ${temporal.uiUrl ?? '-'}`,
          `  Sandbox API     ${sandbox.url}/api2.0/v1/  (API key: ${config.SANDBOX_API_KEY === 'sandbox' ? 'sandbox' : 'from SANDBOX_API_KEY'})`,
          `  Sandbox stats   ${sandbox.url}/__sandbox/stats`,
          `  State           ${dataDir}`,
          '',
          'Ctrl-C stops everything.',
          '',
        ].join('\n'),
      );

      await untilSignal();
      log.info('stopping');
      await sandbox.close();
      await temporal.close();
    });
}
