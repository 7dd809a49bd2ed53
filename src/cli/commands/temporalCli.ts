/**
 * `dropflow temporal-cli`: print the path of the Temporal CLI the dev server will run, building
 * it with Go first if needed. CI calls it before the tests so the one-time build shows its output.
 */
import type { Command } from 'commander';

import { createLogger } from '../../telemetry/log.js';
import { findTemporalCli } from '../../temporal/cli.js';

export function register(program: Command): void {
  program
    .command('temporal-cli')
    .description(
      'print the path of the Temporal CLI used for the dev server, building it with Go once if needed',
    )
    .option('--json', 'print {"path": …} as JSON (path null: it will be downloaded at first start)')
    .action(async (opts: { json?: boolean }) => {
      const path = await findTemporalCli(createLogger('temporal-cli'));
      if (opts.json === true) {
        process.stdout.write(`${JSON.stringify({ path: path ?? null })}\n`);
      } else if (path !== undefined) {
        process.stdout.write(`${path}\n`);
      } else {
        process.stderr.write(
          'dropflow: no local Temporal CLI and no Go on PATH; @temporalio/testing downloads the CLI ' +
            'the first time a dev server starts (needs internet access).\n',
        );
      }
    });
}
