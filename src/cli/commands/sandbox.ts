/** `dropflow sandbox`: the supplier simulator on its own (architecture §6, docs/sandbox.md). */
import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../log.js';
import { startSandbox } from '../../sandbox/server.js';
import { nonNegativeInt, portOption, positiveNumber, untilSignal } from '../options.js';

interface SandboxFlags {
  port?: number;
  host: string;
  dataDir?: string;
  memory?: boolean;
  rate: number;
  batchRate: number;
  lifecycleMs: number;
  allowLocalWebhooks?: boolean;
}

export function register(program: Command): void {
  program
    .command('sandbox')
    .description('run the supplier sandbox: the Open API, simulated, with state kept on disk')
    .option('--port <n>', 'port (env SANDBOX_PORT, default 8787)', portOption)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data-dir <dir>', 'state directory (env DROPFLOW_DATA_DIR, default .dropflow)')
    .option('--memory', 'keep state in memory only')
    .option('--rate <n>', 'requests per second per account', positiveNumber, 1)
    .option('--batch-rate <n>', 'batch order query and proof-of-delivery rate', positiveNumber, 2)
    .option(
      '--lifecycle-ms <n>',
      'ms between automatic steps of paid orders; 0 = manual',
      nonNegativeInt,
      0,
    )
    .option(
      '--allow-local-webhooks',
      'accept http:// and localhost webhook callbacks (development)',
    )
    .action(async (flags: SandboxFlags) => {
      const config = loadConfig();
      const log = createLogger('sandbox');
      const sandbox = await startSandbox({
        log,
        port: flags.port ?? config.SANDBOX_PORT,
        host: flags.host,
        dataDir: flags.memory === true ? undefined : (flags.dataDir ?? config.DROPFLOW_DATA_DIR),
        apiKey: config.SANDBOX_API_KEY,
        ratePerSecond: flags.rate,
        batchRatePerSecond: flags.batchRate,
        lifecycleStepMs: flags.lifecycleMs,
        allowLocalWebhooks: flags.allowLocalWebhooks === true,
      });
      log.info({ url: sandbox.url }, 'sandbox listening');
      process.stdout.write(
        `sandbox: ${sandbox.url}/api2.0/v1/  (controls: ${sandbox.url}/__sandbox/stats)\n`,
      );
      await untilSignal();
      await sandbox.close();
    });
}
