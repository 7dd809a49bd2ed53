/**
 * The `dropflow` command (docs/architecture.md §18). Each subcommand lives in its own module under
 * ./commands/ and exports `register(program)`; add new ones to `commands` below.
 * Command output goes to stdout (`--json`: one JSON document); logs go to stderr.
 */
import { Command } from 'commander';

import pkg from '../../package.json' with { type: 'json' };
import * as account from './commands/account.js';
import * as amend from './commands/amend.js';
import * as approvePayment from './commands/approvePayment.js';
import * as bench from './commands/bench.js';
import * as cancel from './commands/cancel.js';
import * as changeLogistics from './commands/changeLogistics.js';
import * as connect from './commands/connect.js';
import * as dev from './commands/dev.js';
import * as dispute from './commands/dispute.js';
import * as events from './commands/events.js';
import * as frozen from './commands/frozen.js';
import * as gateway from './commands/gateway.js';
import * as list from './commands/list.js';
import * as resume from './commands/resume.js';
import * as sandbox from './commands/sandbox.js';
import * as setup from './commands/setup.js';
import * as status from './commands/status.js';
import * as store from './commands/store.js';
import * as submit from './commands/submit.js';
import * as temporalCli from './commands/temporalCli.js';
import * as waybill from './commands/waybill.js';
import * as webhooks from './commands/webhooks.js';
import * as worker from './commands/worker.js';
import { wantsJson } from './failure.js';
import { stopTracing } from '../temporal/tracing.js';

interface CommandModule {
  register(program: Command): void;
}

const commands: readonly CommandModule[] = [
  dev,
  worker,
  gateway,
  sandbox,
  setup,
  submit,
  status,
  list,
  resume,
  cancel,
  approvePayment,
  changeLogistics,
  amend,
  account,
  store,
  waybill,
  connect,
  dispute,
  webhooks,
  events,
  frozen,
  bench,
  temporalCli,
];

export function registerCommands(program: Command): void {
  for (const command of commands) command.register(program);
}

export function createProgram(): Command {
  const program = new Command('dropflow')
    .description(pkg.description)
    .version(pkg.version)
    .showHelpAfterError()
    .enablePositionalOptions();
  registerCommands(program);
  return program;
}

/**
 * Runs the command line; `argv` as in `process.argv` (node, script, args…). A failure is thrown
 * for reportFailure; with `--json`, Commander's usage errors too, instead of their text.
 */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  const program = createProgram();
  if (wantsJson(argv)) throwUsageErrors(program);
  try {
    await program.parseAsync(argv);
  } finally {
    // The spans still buffered leave before the process does.
    await stopTracing();
  }
}

function throwUsageErrors(command: Command): void {
  command
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({ outputError: () => undefined });
  for (const sub of command.commands) throwUsageErrors(sub);
}

export { reportFailure } from './failure.js';
