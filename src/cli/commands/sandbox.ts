/**
 * `dropflow sandbox`: the supplier simulator on its own (docs/architecture.md §2.2,
 * docs/sandbox.md).
 */
import { resolve } from 'node:path';

import type { Command } from 'commander';
import { loadConfig } from '../../config/environment.js';
import { createLogger } from '../../telemetry/log.js';
import { readDevState } from '../devState.js';
import { loadSandboxTools } from '../devtools.js';
import { CommandError } from '../failure.js';
import {
  nonNegativeInt,
  portOption,
  positiveInt,
  positiveNumber,
  untilSignal,
} from '../options.js';
import { printJson, printLines } from '../output.js';

interface SandboxFlags {
  port?: number;
  host: string;
  dataDir?: string;
  memory?: boolean;
  rate: number;
  batchRate: number;
  lifecycleMs: number;
  allowLocalWebhooks?: boolean;
  // Left out: the sandbox's defaults (tools/src/sandbox/sandbox.ts DEFAULT_SANDBOX_OPTIONS).
  batchLagMs?: number;
  payWindowSeconds?: number;
  oneBudget?: boolean;
  tokenIntervalS?: number;
  refreshesPerMinute?: number;
}

export function register(program: Command): void {
  const command = program
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
      '--batch-lag-ms <n>',
      'order queries show each order as it was this many ms ago (0 = no lag)',
      nonNegativeInt,
    )
    .option('--pay-window-seconds <n>', 'how long a payId can be paid (payExpireTime)', positiveInt)
    .option(
      '--token-interval-s <n>',
      'getAccessToken answered at most once per n seconds per account (0 = no limit)',
      nonNegativeInt,
    )
    .option(
      '--refreshes-per-minute <n>',
      'refreshAccessToken answered at most n times a minute per account (0 = no limit)',
      nonNegativeInt,
    )
    .option(
      '--one-budget',
      "every request also spends the account's general limit (the batch queries' inside it)",
    )
    .option(
      '--allow-local-webhooks',
      'accept http:// and localhost webhook callbacks (development)',
    )
    .action(async (flags: SandboxFlags) => {
      const { startSandbox } = await loadSandboxTools('dropflow sandbox');
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
        batchLagMs: flags.batchLagMs,
        payWindowSeconds: flags.payWindowSeconds,
        oneBudget: flags.oneBudget === true,
        tokenIntervalSeconds: flags.tokenIntervalS,
        refreshesPerMinute: flags.refreshesPerMinute,
      });
      log.info({ url: sandbox.url }, 'sandbox listening');
      // Listening before saying so: a stop asked right after the line must find the handler.
      const stopAsked = untilSignal();
      process.stdout.write(
        `sandbox: ${sandbox.url}/api2.0/v1/  (controls: ${sandbox.url}/__sandbox/stats)\n`,
      );
      await stopAsked;
      await sandbox.close();
    });
  registerTopUp(command);
}

interface TopUpFlags {
  amount: number;
  openId?: string;
  url?: string;
  json?: boolean;
}

interface TopUpAnswer {
  openId: string;
  makeupOrderId: string;
  amount: number;
  balance: { amount: number };
  webhookMessageIds: string[];
}

/** `dropflow sandbox topup --amount N`: POST /__sandbox/topup of a running sandbox. */
function registerTopUp(sandbox: Command): void {
  sandbox
    .command('topup')
    .description(
      'top a sandbox account up as its merchant would: a paid makeup order, its webhook pushed',
    )
    .requiredOption('--amount <n>', 'how much (USD)', positiveNumber)
    .option('--open-id <id>', 'the account (default: the SANDBOX_API_KEY account)')
    .option(
      '--url <url>',
      "the sandbox (default: the running `dropflow dev`'s, else http://127.0.0.1:SANDBOX_PORT)",
    )
    .option('--json', 'print the answer as one JSON document')
    .action(async (flags: TopUpFlags) => {
      const config = loadConfig();
      const dev = readDevState(resolve(config.DROPFLOW_DATA_DIR));
      const url =
        flags.url ??
        (dev?.ports.sandbox !== undefined ? dev.urls.supplier : undefined) ??
        `http://127.0.0.1:${config.SANDBOX_PORT}`;
      const res = await fetch(`${url.replace(/\/+$/, '')}/__sandbox/topup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          amount: flags.amount,
          ...(flags.openId !== undefined && { openId: flags.openId }),
        }),
      }).catch((err: unknown) => {
        throw new CommandError(
          `cannot reach the sandbox at ${url}: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`,
          'SANDBOX_UNREACHABLE',
        );
      });
      if (res.status !== 200) {
        const body = (await res.json().catch(() => ({}))) as { error?: string };
        throw new CommandError(
          `the sandbox at ${url} refused the top-up: HTTP ${res.status} ${body.error ?? ''}`.trim(),
          'SANDBOX_REFUSED',
        );
      }
      const answer = (await res.json()) as TopUpAnswer;
      if (flags.json === true) {
        printJson(answer);
        return;
      }
      const webhook =
        answer.webhookMessageIds.length > 0
          ? 'makeup webhook pushed (CREATED, PAID)'
          : 'no makeup webhook: the account has no makeup callback (dropflow webhooks register)';
      printLines([
        `topup ${answer.makeupOrderId}: +${answer.amount} to account ${answer.openId}; balance ${answer.balance.amount}; ${webhook}`,
      ]);
    });
}
